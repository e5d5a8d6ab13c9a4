/**
 * The web page of a browser call (test/e2e/calls-browser.test.ts, bench/calls.ts --browser): a call button's worth
 * of `useLiveAgent` from `oraclekit/react/live-agent` with the real `livekit-client`, bundled by Vite, served on
 * loopback. The page offers `window.call` (start, say, camera, heard, end, state) to whoever drives it. Where
 * `oraclekit` resolves from is the caller's: a scaffolded project's node_modules (the test), or this checkout's dist/
 * (the bench).
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { extname, join } from 'node:path';
import { build, type AliasOptions } from 'vite';
import react from '@vitejs/plugin-react';
import type { Page } from 'playwright-core';
import { ROOT } from './cli.ts';
import { listenLoopback } from './loopback.ts';

/** The page: a call button's worth of useLiveAgent, and what the page heard from the agent, recorded in 10 ms rows. */
const PAGE = `
import { useEffect } from 'react';
import { createRoot } from 'react-dom/client';
import { RoomEvent, Track } from 'livekit-client';
import { signerFromMnemonic } from 'oraclekit/client';
import { OraclesProvider } from 'oraclekit/react';
import { useLiveAgent } from 'oraclekit/react/live-agent';

const q = new URLSearchParams(location.search);
const ORACLE_URL = q.get('oracle');
const ORACLE_DID = q.get('did');
const SESSION = q.get('session');

// what the page heard: per chunk of the agent's audio as the page plays it, its time, length and energy
const heard = [];
async function record(track) {
  const reader = new MediaStreamTrackProcessor({ track }).readable.getReader();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    const n = value.numberOfFrames;
    const buf = new Float32Array(n);
    value.copyTo(buf, { planeIndex: 0, format: 'f32-planar' });
    let sq = 0;
    for (const x of buf) sq += (x * 32768) ** 2;
    heard.push({ at: performance.now(), ts: value.timestamp / 1000, n, rate: value.sampleRate, sq });
    value.close();
  }
}

function Call() {
  const live = useLiveAgent(ORACLE_DID, { overrides: { baseUrl: ORACLE_URL } });
  const { room } = live;
  useEffect(() => {
    const onTrack = (track) => {
      if (track.kind !== Track.Kind.Audio) return;
      const el = track.attach();
      document.body.append(el);
      void record(track.mediaStreamTrack);
    };
    // the microphone stays quiet until the test says when to speak (mic.say: the WAV from its start)
    const onPublished = (pub) => {
      if (pub.source === Track.Source.Microphone && pub.track) pub.track.mediaStreamTrack.enabled = false;
    };
    room.on(RoomEvent.TrackSubscribed, onTrack);
    room.on(RoomEvent.LocalTrackPublished, onPublished);
    return () => {
      room.off(RoomEvent.TrackSubscribed, onTrack);
      room.off(RoomEvent.LocalTrackPublished, onPublished);
    };
  }, [room]);
  window.call = {
    start: (callType = 'audio') =>
      live.callAgent({ callType, sessionId: SESSION, language: 'en' }).then(
        (r) => ({ ok: true, callId: r.callId }),
        (e) => ({ ok: false, code: e.code, name: e.name, message: e.message }),
      ),
    end: () => live.endCall(),
    say: async () => {
      const pub = room.localParticipant.getTrackPublication(Track.Source.Microphone);
      const at = performance.now();
      await pub.track.restartTrack();
      pub.track.mediaStreamTrack.enabled = true;
      return at;
    },
    camera: (on) => room.localParticipant.setCameraEnabled(on === 'on').then(() => on),
    heard: (since = 0) => heard.filter((h) => h.at >= since),
    now: () => performance.now(),
    state: () => ({
      isConfigReady: live.isConfigReady,
      isReady: live.isReady,
      isCalling: live.isCalling,
      sessionStarted: live.sessionStarted,
      callId: live.callId,
      room: room.state,
      remote: [...room.remoteParticipants.keys()],
      e2ee: room.isE2EEEnabled,
    }),
  };
  return (
    <main>
      <h1>Call the oracle</h1>
      <p data-testid="state">{live.isReady ? 'in the call' : live.isConnecting ? 'connecting' : 'idle'}</p>
      {live.error && <p role="alert">{live.error.message}</p>}
    </main>
  );
}

createRoot(document.getElementById('root')).render(
  <OraclesProvider initialWallet={{ did: window.signer.did(), signer: window.signer }}>
    <Call />
  </OraclesProvider>,
);
`;

const MAIN = `
import { signerFromMnemonic } from 'oraclekit/client';
window.signer = await signerFromMnemonic(new URLSearchParams(location.search).get('mnemonic'));
await import('./call.jsx');
`;

/**
 * One chunk of the agent's audio as the page got it: when the page read it (performance.now()), its timestamp
 * (AudioData.timestamp in ms, on a clock of its own), how many samples, their energy.
 */
export interface HeardRow {
  at: number;
  ts: number;
  n: number;
  rate: number;
  sq: number;
}

/** What the page's `window.call` offers (PAGE above). */
interface PageCall {
  start(callType?: string): { ok: boolean; callId?: string; code?: string; name?: string; message?: string };
  end(): void;
  say(): number;
  /** Turns the camera on or off ('on' / 'off'), as a page's camera button does. */
  camera(on: string): string;
  heard(since: number): HeardRow[];
  now(): number;
  state(): Record<string, unknown>;
}
type Window = { call?: PageCall };

/** Calls `window.call[method]` in the page. */
export function inPage<K extends keyof PageCall>(
  page: Page,
  method: K,
  arg?: number | string,
): Promise<ReturnType<PageCall[K]>> {
  return page.evaluate(([m, a]) => ((window as unknown as Window).call![m] as (x?: number | string) => unknown)(a), [
    method,
    arg,
  ] as const) as Promise<ReturnType<PageCall[K]>>;
}

/** Waits until the page's oracle configuration (its URL, given in the page's query) is ready for a call. */
export async function configReady(page: Page): Promise<void> {
  await page.waitForFunction(() => (window as unknown as Window).call?.state().isConfigReady, undefined, {
    timeout: 30_000,
  });
}

/**
 * Writes the page into `web` (whose ancestors' node_modules hold react, react-dom and livekit-client), bundles it
 * and serves the bundle on 127.0.0.1. `alias` maps `oraclekit/...` where it does not resolve as a package; `page` is
 * the page's component module (default: the call button above).
 */
export async function serveCallPage(
  web: string,
  alias?: AliasOptions,
  page: string = PAGE,
): Promise<{ url: string; close(): Promise<void> }> {
  mkdirSync(join(web, 'src'), { recursive: true });
  writeFileSync(
    join(web, 'index.html'),
    '<!doctype html>\n<html lang="en"><head><meta charset="UTF-8" /><title>Call test page</title></head>\n' +
      '<body><div id="root"></div><script type="module" src="/src/main.js"></script></body></html>\n',
  );
  writeFileSync(join(web, 'src/main.js'), MAIN);
  writeFileSync(join(web, 'src/call.jsx'), page);
  const dist = join(web, 'dist');
  await build({
    root: web,
    plugins: [react()],
    logLevel: 'warn',
    ...(alias ? { resolve: { alias } } : {}),
    build: { outDir: dist, target: 'es2022', chunkSizeWarningLimit: 4096 },
  });
  const site = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    const file = join(dist, path === '/' ? 'index.html' : path);
    if (!file.startsWith(dist) || !existsSync(file)) return void res.writeHead(404).end();
    const type = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css' }[extname(file)];
    res.writeHead(200, { 'content-type': type ?? 'application/octet-stream' }).end(readFileSync(file));
  });
  return listenLoopback(site);
}

/** `oraclekit/...` as this checkout's built dist/ (npm run build), for a page bundled inside the checkout. */
export const CHECKOUT_ALIAS: AliasOptions = [
  { find: /^oraclekit\/react\/live-agent$/, replacement: join(ROOT, 'dist/client/react/live-agent.js') },
  { find: /^oraclekit\/react$/, replacement: join(ROOT, 'dist/client/react/index.js') },
  { find: /^oraclekit\/client$/, replacement: join(ROOT, 'dist/client/index.js') },
];
