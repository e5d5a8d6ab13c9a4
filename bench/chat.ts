/**
 * Chat latency: time from Enter to the first rendered token in the Ink TUI,
 * against the runtime's own first SSE byte of the answer — both against the
 * same real runtime on loopback with the scripted model server.
 *
 * - baseline: a bare fetch (its UCANs minted beforehand, the same headers the
 *   client sends: invocation + delegation) POSTs the message with stream:true;
 *   time until the first `event: message` frame's bytes arrive.
 * - TUI: the real ChatApp rendered by Ink into a TTY-like stream; Enter is
 *   written to its stdin; time until a frame containing the first token is
 *   written to its stdout. This path includes everything the user waits for:
 *   input handling, UCAN minting, the request, SSE parsing, React and Ink.
 *
 * Added latency = TUI − baseline, per pair (interleaved), reported as median
 * and p90. Target: under 30 ms added.
 * Run: npm run build && node bench/chat.ts [pairs]
 */
import { PassThrough, Writable } from 'node:stream';
import { createElement } from 'react';
import { render } from 'ink';
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { join } from 'node:path';
// the built TUI (Node strips types but does not compile JSX): run `npm run build` first
import { OracleClient } from '../dist/client/client.js';
import { ChatController } from '../dist/ui/chat-controller.js';
import { ChatApp } from '../dist/ui/ChatApp.js';
import { generateSigner } from '../src/lib/keys/keys.ts';
import { mintDelegation, mintInvocation } from '../src/lib/ucan/ucan.ts';
import { quantile } from './stats.ts';

const pairs = Number(process.argv[2] ?? 30);
const TOKEN = 'Zebra';
const server = spawn(process.execPath, [join(import.meta.dirname, 'chat-server.ts'), TOKEN], {
  stdio: ['ignore', 'pipe', 'inherit'],
});
const h = await new Promise<{ url: string; oracleDid: string }>((resolve, reject) => {
  server.on('exit', (c) => reject(new Error(`chat-server exited ${c}`)));
  createInterface({ input: server.stdout! }).once('line', (l) =>
    resolve(JSON.parse(l) as { url: string; oracleDid: string }),
  );
});
const ms = (a: bigint, b: bigint) => Number(b - a) / 1e6;

// ---- baseline: the runtime's own first SSE byte of the answer -------------
const bare = await generateSigner();
const bareSession = await (async () => {
  const tok = await mintInvocation({ issuer: bare, audience: h.oracleDid });
  const r = await fetch(`${h.url}/sessions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${tok}`, 'x-auth-type': 'ucan', 'content-type': 'application/json' },
    body: '{}',
  });
  return ((await r.json()) as { sessionId: string }).sessionId;
})();

// the same headers the client sends (invocation + delegation), so the baseline is the runtime's own work for that
// request
const deleg = (await mintDelegation({ issuer: bare, audience: h.oracleDid })).token;
async function baseline(): Promise<number> {
  const tok = await mintInvocation({ issuer: bare, audience: h.oracleDid });
  const t0 = process.hrtime.bigint();
  const res = await fetch(`${h.url}/messages/${bareSession}`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${tok}`,
      'x-auth-type': 'ucan',
      'x-ucan-delegation': deleg,
      'content-type': 'application/json',
    },
    body: JSON.stringify({ message: 'hi', stream: true }),
  });
  const reader = res.body!.getReader();
  const dec = new TextDecoder();
  let buf = '';
  let t1: bigint | undefined;
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buf += dec.decode(value, { stream: true });
    if (t1 === undefined && buf.includes('event: message')) t1 = process.hrtime.bigint();
  }
  if (t1 === undefined) throw new Error('no message frame');
  return ms(t0, t1);
}

// ---- the TUI ---------------------------------------------------------------
class Screen extends Writable {
  isTTY = true;
  columns = 120;
  rows = 40;
  onWrite: ((s: string) => void) | undefined;
  override _write(chunk: Buffer, _enc: string, cb: () => void): void {
    this.onWrite?.(chunk.toString());
    cb();
  }
}
const stdout = new Screen();
const stdin = Object.assign(new PassThrough(), {
  isTTY: true,
  setRawMode: () => stdin,
  ref: () => stdin,
  unref: () => stdin,
});
// breakdown: when the client calls fetch for the message, and when the chat tells its first text (firstText)
let tFetch = 0n;
let tEvent = 0n;
const timedFetch: typeof fetch = (input, init) => {
  if (init?.method === 'POST' && String(input).includes('/messages/')) tFetch = process.hrtime.bigint();
  return fetch(input, init);
};
const client = new OracleClient({
  baseUrl: h.url,
  oracleDid: h.oracleDid,
  signer: await generateSigner(),
  fetch: timedFetch,
  auth: { premint: true },
});
const controller = new ChatController(client);
controller.on('firstText', () => (tEvent = process.hrtime.bigint()));
await controller.ensureSession();
const app = render(createElement(ChatApp, { controller, spinnerMs: 80 }), {
  stdout: stdout as unknown as NodeJS.WriteStream,
  stdin: stdin as unknown as NodeJS.ReadStream,
  exitOnCtrlC: false,
  interactive: true,
  patchConsole: false,
  maxFps: 120,
});

const split = { input: [] as number[], network: [] as number[], render: [] as number[] };
async function tui(): Promise<number> {
  for (const ch of 'hi') stdin.write(ch);
  await new Promise((r) => setTimeout(r, 30));
  let resolveToken!: (t: bigint) => void;
  const token = new Promise<bigint>((r) => (resolveToken = r));
  stdout.onWrite = (s) => {
    if (s.includes(TOKEN)) {
      stdout.onWrite = undefined;
      resolveToken(process.hrtime.bigint());
    }
  };
  const t0 = process.hrtime.bigint();
  stdin.write('\r');
  const t1 = await token;
  split.input.push(ms(t0, tFetch));
  split.network.push(ms(tFetch, tEvent));
  split.render.push(ms(tEvent, t1));
  // let the turn finish before the next one
  while (
    controller.streaming ||
    !(await client.activeRun(controller.sessionId!)).run ||
    (await client.activeRun(controller.sessionId!)).run?.status === 'running'
  )
    await new Promise((r) => setTimeout(r, 5));
  await new Promise((r) => setTimeout(r, 30));
  return ms(t0, t1);
}

const q = quantile;
// warm-up: JIT, connections, first render
for (let i = 0; i < 3; i++) {
  await baseline();
  await tui();
}
const base: number[] = [];
const ui: number[] = [];
const added: number[] = [];
for (let i = 0; i < pairs; i++) {
  const b = await baseline();
  const t = await tui();
  base.push(b);
  ui.push(t);
  added.push(t - b);
}
app.unmount();
server.kill('SIGTERM');
const f = (x: number) => `${x.toFixed(1)} ms`;
console.log(`pairs: ${pairs}`);
console.log(`runtime first SSE message byte (bare fetch): median ${f(q(base, 0.5))}, p90 ${f(q(base, 0.9))}`);
console.log(`TUI Enter → first rendered token:           median ${f(q(ui, 0.5))}, p90 ${f(q(ui, 0.9))}`);
console.log(`  Enter → fetch (input, UCAN minting):       median ${f(q(split.input, 0.5))}`);
console.log(`  fetch → first token event (network+SSE):  median ${f(q(split.network, 0.5))}`);
console.log(`  event → token on screen (React + Ink):    median ${f(q(split.render, 0.5))}`);
console.log(
  `added by the TUI:                            median ${f(q(added, 0.5))}, p90 ${f(q(added, 0.9))}  (target < 30 ms)`,
);
process.exit(0);
