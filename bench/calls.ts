/**
 * A voice call's answer latency and CPU (docs/live-agent.md): an oracle with
 * its embedded LiveKit-protocol endpoint in a child process of its own
 * (calls-oracle.ts), speech-to-text, model and text-to-speech scripted on
 * loopback with no delay, and a user who calls with the call's E2EE key:
 * - by default a LiveKit participant through @livekit/rtc-node in this
 *   process, speaking from an AudioSource with a 20 ms queue and listening
 *   through an AudioStream;
 * - with --browser, headless Chromium (Debian's /usr/bin/chromium, or
 *   $CHROMIUM) on the page of test/helpers/call-page.ts: `useLiveAgent` with
 *   the real livekit-client, its microphone Chromium's capture device
 *   playing a WAV file in a loop (the sentence, then GAP_MS of silence), the
 *   agent's track read through a MediaStreamTrackProcessor as the page
 *   receives it.
 * For each of N utterances (an espeak-ng sentence, then silence): the time
 * from the end of the user's speech (its last 10 ms frame louder than
 * −45 dBFS, the level the agent places the end of speech by, as the page's
 * microphone track carries it, or as handed to the rtc-node user's
 * AudioSource) to the first loud chunk of the agent's answer the user gets. Target: at most
 * CALLS_END_OF_TURN_MS + 150 ms (median and p95).
 * Also the oracle process's CPU (its endpoint included) per second of call (calls-load.ts measures how many
 * calls a core holds).
 *
 * With --word-ms=N the model streams its answer (a long first sentence) one
 * word every N ms, as a hosted model streams tokens, instead of at once.
 *
 * With --busy another user streams chat turns (400 words, one per 5 ms) through the same oracle for the whole run,
 * and with --calls=K K − 1 more users are in calls of their own, each saying the sentence every 1.5–3 s: the
 * latency of the measured call while the oracle is busy with other users' turns and calls. Then every answer is the
 * model's default one (the chat turns' streams are queued for them just before each is sent).
 *
 * The oracle runs this checkout's build (`npm run build` first); --tree=<checkout> runs another checkout's build, for a
 * before/after in one sitting.
 *
 * Usage: node bench/calls.ts [utterances=20] [--browser] [--word-ms=N] [--busy] [--calls=K] [--verbose]
 *   [--tree=<checkout>]
 */
import './rtc-quiet.ts';
import { fork } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { wav } from '../src/calls/audio.ts';
import { startScriptedModelServer } from '../src/runtime/testing/model-server.ts';
import { say } from '../src/runtime/testing/script.ts';
import { generateMnemonic, generateSigner, signerFromMnemonic } from '../src/lib/keys/keys.ts';
import { mintInvocation } from '../src/lib/ucan/ucan.ts';
import { OracleClient } from '../src/client/index.ts';
import { startSpeechServer } from '../test/helpers/speech-server.ts';
import { startRelay, targetOf } from '../test/helpers/tcp-relay.ts';
import { espeak } from '../test/helpers/spoken.ts';
import { CHECKOUT_ALIAS, configReady, inPage, serveCallPage, type HeardRow } from '../test/helpers/call-page.ts';
import {
  callingUser,
  END_OF_TURN_MS,
  jitterBufferBetween,
  jitterBufferOf,
  oracleEnv,
  within,
  type JitterBuffer,
} from './call-user.ts';
import { cpuUsOf } from './proc.ts';
import { quantile } from './stats.ts';

const args = process.argv.slice(2);
const N = Number(args.find((a) => !a.startsWith('--')) ?? 20);
const BROWSER = args.includes('--browser');
/** Each utterance's latency and the agent's line for it, on stderr. */
const VERBOSE = args.includes('--verbose');
const BUSY = args.includes('--busy');
const CALLS = Number(args.find((a) => a.startsWith('--calls='))?.slice('--calls='.length) ?? 1);
const TREE = args.find((a) => a.startsWith('--tree='))?.slice('--tree='.length);
const WORD_MS = Number(args.find((a) => a.startsWith('--word-ms='))?.slice('--word-ms='.length) ?? 0);
/**
 * The round trip to the scripted services (ms; 0: they are on loopback as they are): with one, the model and the
 * speech services behave as services that far away whose server closes a connection idle for 5 s (test/helpers/
 * tcp-relay.ts): a new connection waits two round trips (TCP, TLS 1.3) before its request passes.
 */
const FAR_MS = Number(args.find((a) => a.startsWith('--far='))?.slice('--far='.length) ?? 0);
/**
 * How long the text-to-speech service takes to synthesize a sentence (ms; 0: at once), sending it in ten parts as it
 * goes (test/helpers/speech-server.ts).
 */
const SYNTHESIS_MS = Number(args.find((a) => a.startsWith('--synthesis-ms='))?.slice('--synthesis-ms='.length) ?? 0);
/** The services' server closes a connection idle this long (ms), with --far. */
const FAR_IDLE_MS = 5000;
const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';
const LONG = 'In Nairobi this evening, the sky is clear and the air is cool and still. Okay.';
/** The answer: at once, or word by word. */
const answer = () =>
  WORD_MS > 0
    ? {
        steps: LONG.split(' ').flatMap((w, i) => [
          ...(i ? [{ type: 'delay' as const, ms: WORD_MS }] : []),
          { type: 'text' as const, text: i ? ` ${w}` : w },
        ]),
      }
    : say('Okay.');
const RATE = 48_000;
/** The user's sentence, and where its sound ends (samples): the end of its last frame louder than −45 dBFS. */
const SPEECH = espeak('What time is it in Nairobi?', RATE);
const SPEECH_END = Math.round((SPEECH.soundMs.end / 1000) * RATE);
/**
 * The user's pause between turns (ms): in the browser, the silence after each sentence of the microphone's loop
 * (default 2500); on rtc-node, the pause after each answer's first sound (default 1000, 2500 with --word-ms).
 */
const GAP_ARG = args.find((a) => a.startsWith('--gap='))?.slice('--gap='.length);
const GAP_MS = Number(GAP_ARG ?? (BROWSER ? 2500 : WORD_MS ? 2500 : 1000));
/** −45 dBFS: a chunk of the user's louder than this is speech (the level the agent places the end of speech by). */
const USER_LOUD = -45;
/** −40 dBFS: a chunk louder than this is the answer's sound. */
const LOUD = -40;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const here = dirname(fileURLToPath(import.meta.url));

/** The stages of one answer, in ms, from the agent's log line. */
function stagesOf(line: string): Record<string, number> {
  const out: Record<string, number> = {};
  const total = /first audio (\d+) ms after the end of turn \((\d+) ms after the last loud frame\)/.exec(line);
  if (total) {
    out['end of turn'] = Number(total[2]);
    out['in the oracle'] = Number(total[1]);
  }
  for (const m of line.matchAll(
    /(speech-to-text|turn start|first text|first sentence|text-to-speech|to the track) (\d+)/g,
  ))
    out[m[1]!] = Number(m[2]);
  return out;
}

const model = await startScriptedModelServer();
const speech = await startSpeechServer();
speech.speech.ms = 300;
speech.speech.synthesisMs = SYNTHESIS_MS;
const far =
  FAR_MS > 0
    ? {
        model: await startRelay({ target: targetOf(model.url), rttMs: FAR_MS, idleMs: FAR_IDLE_MS }),
        speech: await startRelay({ target: targetOf(speech.baseURL), rttMs: FAR_MS, idleMs: FAR_IDLE_MS }),
      }
    : undefined;
const web = BROWSER
  ? (mkdirSync(join(here, 'out'), { recursive: true }), mkdtempSync(join(here, 'out/call-page-')))
  : '';
const site = BROWSER ? await serveCallPage(web, CHECKOUT_ALIAS) : undefined;

// the oracle, in a process of its own
const mnemonic = generateMnemonic();
const oracle = await signerFromMnemonic(mnemonic);
const child = fork(
  join(here, 'calls-oracle.ts'),
  [
    JSON.stringify({
      mnemonic,
      ...(TREE ? { tree: TREE } : {}),
      env: {
        ...oracleEnv(far ? { baseURL: `${far.model.url}/v1` } : model, far ? { baseURL: far.speech.url } : speech),
        ...(site ? { CORS_ORIGINS: site.url } : {}),
      },
    }),
  ],
  { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] },
);
/** The agent's stage lines, each with when it was logged (the answer's first frame on the agent's track, this process's performance.now()). */
const stageLines: { line: string; at: number }[] = [];
/** How late the oracle's event loop ran (ms; perf_hooks' monitorEventLoopDelay, 10 ms resolution). */
interface LoopDelay {
  p50: number;
  p99: number;
  max: number;
}
const loopReplies: ((d: LoopDelay) => void)[] = [];
/** The oracle's event-loop delay since the last call. */
const loopDelay = () =>
  new Promise<LoopDelay>((ok) => {
    loopReplies.push(ok);
    child.send({ type: 'loop' });
  });
const url = await new Promise<string>((ok, fail) => {
  child.on('message', (m: { type: string; url?: string; line?: string; at?: number }) => {
    if (m.type === 'ready') ok(m.url!);
    else if (m.type === 'stages') stageLines.push({ line: m.line!, at: m.at! - performance.timeOrigin });
    else if (m.type === 'loop') loopReplies.shift()?.(m as unknown as LoopDelay);
  });
  child.once('exit', (code) => fail(new Error(`the oracle exited (${code}) before it listened`)));
});

/**
 * One way of calling: speak one utterance (resolving at the end of the speech, on this process's performance.now()),
 * and when the user first got a loud chunk of the answer after a time.
 */
interface Caller {
  /** The call's id, when known: only the agent's lines about it are this caller's. */
  callId?: string;
  speak(): Promise<number>;
  firstLoudAfter(since: number): Promise<number | undefined>;
  /** The user's jitter buffer for the agent's audio so far (WebRTC's inbound-rtp stats). */
  jitterBuffer(): Promise<JitterBuffer | undefined>;
  close(): Promise<void>;
}

/** Per utterance, how late the oracle's event loop ran at most while it was said and answered (ms). */
const loopMax: number[] = [];
/** The median of each stage over the answers (ms). */
const perStage: Record<string, number[]> = {};
/**
 * With --browser, per answer: how much later the page read the chunk that ended the user's speech and the answer's
 * first loud chunk than it read the chunks that came while it was idle (ms; from the chunks' own timestamps).
 */
const readLate = { microphone: [] as number[], agent: [] as number[] };

/** The user as an rtc-node participant in this process. */
async function rtcNodeCaller(): Promise<Caller> {
  const user = await callingUser(url, oracle.did(), { samples: SPEECH.samples, end: SPEECH_END });
  await sleep(1000); // subscriptions settle
  return { ...user, firstLoudAfter: async (since) => user.firstLoudAfter(since) };
}

/**
 * The user as a web page in headless Chromium, its microphone Chromium's own capture device (getUserMedia, the
 * browser's audio processing included) playing a WAV file in a loop: the sentence, then GAP_MS of silence.
 */
async function browserCaller(): Promise<Caller> {
  const mic = join(web, 'microphone.wav');
  const looped = new Int16Array(SPEECH.samples.length + (GAP_MS / 1000) * RATE);
  looped.set(SPEECH.samples);
  writeFileSync(mic, wav(looped, RATE));
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--use-fake-ui-for-media-stream',
      '--use-fake-device-for-media-stream',
      `--use-file-for-fake-audio-capture=${mic}`,
      '--autoplay-policy=no-user-gesture-required',
    ],
  });
  const userMnemonic = generateMnemonic();
  const client = await OracleClient.connect({ baseUrl: url, signer: await signerFromMnemonic(userMnemonic) });
  const { sessionId } = await client.createSession();
  const page = await browser.newPage();
  page.on('pageerror', (e) => console.error('page error:', e.message));
  page.on('crash', () => console.error('the page crashed'));
  await page.addInitScript(
    ([loudDb, quietMs]) => {
      // the page's peer connections, kept for their stats
      const pcs: RTCPeerConnection[] = [];
      (window as unknown as { pcs: RTCPeerConnection[] }).pcs = pcs;
      const Native = window.RTCPeerConnection;
      window.RTCPeerConnection = class extends Native {
        constructor(config?: RTCConfiguration) {
          super(config);
          pcs.push(this);
        }
      };
      // the microphone's track as the page carries it (a clone, read through a MediaStreamTrackProcessor): each
      // utterance's first loud chunk and its last, the end of its speech, once quietMs of silence followed
      const utterances: { start: number; end: number; came: number }[] = [];
      const waiting: (() => void)[] = [];
      // the first utterance to start after `after` (performance.now()), once it has ended
      (window as unknown as { nextUtterance: unknown }).nextUtterance = (after: number) =>
        new Promise((resolve) => {
          const check = () => {
            const u = utterances.find((x) => x.start > after);
            if (u) resolve(u);
            else waiting.push(check);
          };
          check();
        });
      type Processor = new (o: { track: MediaStreamTrack }) => { readable: ReadableStream<AudioData> };
      const listen = async (track: MediaStreamTrack) => {
        const reader = new (window as unknown as { MediaStreamTrackProcessor: Processor }).MediaStreamTrackProcessor({
          track,
        }).readable.getReader();
        let start = 0;
        let last = 0;
        let lastTs = 0;
        let quiet = Infinity;
        // read time minus timestamp, at its least: the chunks the page read as they came
        let lag = Infinity;
        for (;;) {
          const { value } = await reader.read();
          if (!value) return;
          const buf = new Float32Array(value.numberOfFrames);
          value.copyTo(buf, { planeIndex: 0, format: 'f32-planar' });
          const ms = (value.numberOfFrames / value.sampleRate) * 1000;
          const ts = value.timestamp / 1000;
          value.close();
          const now = performance.now();
          lag = Math.min(lag, now - ts);
          const sq = buf.reduce((a, x) => a + x * x, 0) / Math.max(1, buf.length);
          if (10 * Math.log10(sq) > loudDb) {
            if (quiet >= quietMs) start = now;
            last = now;
            lastTs = ts;
            quiet = 0;
          } else if (quiet < quietMs && (quiet += ms) >= quietMs) {
            utterances.push({ start, end: last, came: lastTs + lag });
            for (const check of waiting.splice(0)) check();
          }
        }
      };
      const native = navigator.mediaDevices.getUserMedia.bind(navigator.mediaDevices);
      navigator.mediaDevices.getUserMedia = async (constraints) => {
        const stream = await native(constraints);
        const track = stream.getAudioTracks()[0];
        if (track) void listen(track.clone());
        return stream;
      };
    },
    [USER_LOUD, END_OF_TURN_MS] as const,
  );
  const query = new URLSearchParams({ oracle: url, did: oracle.did(), session: sessionId, mnemonic: userMnemonic });
  await page.goto(`${site!.url}/?${query}`);
  await configReady(page);
  const started = await inPage(page, 'start');
  if (!started.ok) throw new Error(`the page could not call: ${JSON.stringify(started)}`);
  await inPage(page, 'say'); // the microphone on
  await sleep(1000); // subscriptions settle
  // page and bench clocks differ: the page's performance.now() is carried here by its offset
  const local = performance.now();
  const offset = (await inPage(page, 'now')) - (local + performance.now()) / 2;
  const loud = (r: HeardRow) => 10 * Math.log10(r.sq / r.n / 32768 ** 2) > LOUD;
  return {
    async speak() {
      // the next utterance the microphone plays whole: one that starts from now on
      type Next = (after: number) => Promise<{ start: number; end: number; came: number }>;
      const next = page.evaluate(() => (window as unknown as { nextUtterance: Next }).nextUtterance(performance.now()));
      const waitMs = GAP_MS + 2 * (SPEECH.samples.length / RATE) * 1000 + END_OF_TURN_MS + 1000;
      const u = await Promise.race([next, sleep(waitMs).then(() => undefined)]);
      if (!u) throw new Error(`the microphone's track carried no utterance in ${Math.round(waitMs)} ms`);
      readLate.microphone.push(u.end - u.came);
      return u.end - offset;
    },
    async firstLoudAfter(since) {
      const rows = await inPage(page, 'heard', since + offset);
      const row = rows.find(loud);
      if (row) readLate.agent.push(row.at - row.ts - Math.min(...rows.map((r) => r.at - r.ts)));
      return row && row.at - offset;
    },
    async jitterBuffer() {
      const inbound = await page.evaluate(async () => {
        const out: Record<string, number>[] = [];
        for (const pc of (window as unknown as { pcs: RTCPeerConnection[] }).pcs)
          (await pc.getStats()).forEach((r: Record<string, number | string>) => {
            if (r.type === 'inbound-rtp' && r.kind === 'audio') out.push(r as Record<string, number>);
          });
        return out;
      });
      return jitterBufferOf(inbound);
    },
    async close() {
      await inPage(page, 'end').catch(() => {});
      await browser.close();
    },
  };
}

const caller = BROWSER ? await browserCaller() : await rtcNodeCaller();

/** The other users: K − 1 more calls that talk, and a chat user whose turns stream all along. */
const shared = BUSY || CALLS > 1;
const CHAT = 'Tell me everything.';
/** The chat user's answer: 400 words, one every 5 ms. */
const chatAnswer = {
  steps: Array.from({ length: 400 }, (_, i) => [
    ...(i ? [{ type: 'delay' as const, ms: 5 }] : []),
    { type: 'text' as const, text: i ? ` word${i}` : 'word0' },
  ]).flat(),
};
// each request answered by whom it comes from (a queue would race: a call's request, early ones included, could
// take the chat's script)
if (shared)
  model.fallback = (body) =>
    JSON.stringify(body.messages.at(-1)?.content ?? '').includes(CHAT) ? chatAnswer : answer();
let othersOn = true;
const others = await Promise.all(
  Array.from({ length: CALLS - 1 }, () => callingUser(url, oracle.did(), { samples: SPEECH.samples, end: SPEECH_END })),
);
const talking = others.map(async (o) => {
  while (othersOn) {
    await sleep(1500 + Math.random() * 1500);
    if (othersOn) await o.speak();
  }
});
let chatTurns = 0;
const chatting = BUSY
  ? (async () => {
      const chatter = await generateSigner();
      const headers = async () => ({
        authorization: `Bearer ${await mintInvocation({ issuer: chatter, audience: oracle.did() })}`,
        'content-type': 'application/json',
      });
      const r = await fetch(`${url}/sessions`, { method: 'POST', headers: await headers(), body: '{}' });
      const { sessionId } = (await r.json()) as { sessionId: string };
      while (othersOn) {
        const res = await fetch(`${url}/messages/${sessionId}`, {
          method: 'POST',
          headers: await headers(),
          body: JSON.stringify({ message: CHAT, stream: true }),
        });
        await res.text();
        chatTurns++;
      }
    })()
  : undefined;
if (shared) await sleep(1000); // the other calls' subscriptions settle
const latencies: number[] = [];
/** With --far: for each answer, the connections to the services opened between the end of speech and its sound. */
const newConnections: number[] = [];
/** The utterance each latency answers (an unanswered one has none). */
const answeredUtterances: number[] = [];
const cpu0 = cpuUsOf(child.pid!);
const t0 = performance.now();
let unanswered = 0;
let lastBuffer: JitterBuffer | undefined;
for (let i = 0; i < N; i++) {
  if (!shared) model.enqueue(answer());
  else if (caller.callId === undefined) throw new Error('--busy and --calls need the rtc-node user (not --browser)');
  const before = stageLines.length;
  await loopDelay(); // from here on
  const end = await caller.speak();
  // the agent's answer to this utterance (its stage line), then the answer's first sound at the user after it
  const logged = await within(END_OF_TURN_MS + 3000, () =>
    stageLines.slice(before).find((l) => l.at > end && (caller.callId === undefined || l.line.includes(caller.callId))),
  );
  const first = logged && (await within(2000, () => caller.firstLoudAfter(Math.max(end, logged.at - 5))));
  const loop = await loopDelay();
  loopMax.push(loop.max);
  // the user's jitter buffer since the last answer: it grows for many seconds after packets came late once
  const buffer = VERBOSE ? await caller.jitterBuffer() : undefined;
  const held = buffer && jitterBufferBetween(lastBuffer, buffer);
  lastBuffer = buffer ?? lastBuffer;
  if (VERBOSE)
    console.error(
      `${i}: ${first === undefined ? 'unanswered' : `${Math.round(first - end)} ms`}; the oracle's event loop late ` +
        `by up to ${loop.max} ms; the agent's first frame ` +
        `${logged ? Math.round(logged.at - end) : '-'} ms after the end of speech: ${logged?.line.replace(/^.*?: /, '')}` +
        (held ? `; the user's jitter buffer since the last answer ${held.meanMs} ms (aiming at ${held.targetMs})` : ''),
    );
  if (first === undefined) {
    unanswered++;
    await sleep(3000); // the line settles before the next utterance
    continue;
  }
  latencies.push(first - end);
  answeredUtterances.push(i);
  const stages = stagesOf(logged!.line);
  if (stages['in the oracle'] !== undefined) {
    // the rest: the line from the user to the agent (encoding, network, the endpoint, a jitter buffer), and back
    const agentHeardLast = logged!.at - stages['in the oracle'] - (stages['end of turn'] ?? 0);
    stages['the line, user to agent'] = agentHeardLast - end;
    stages['the line, agent to user'] = first - logged!.at;
    for (const [k, v] of Object.entries(stages)) (perStage[k] ??= []).push(v);
  }
  if (far) {
    // the connections to the services opened while the answer was awaited (Date.now() on the relays)
    const [from, to] = [end, first].map((t) => performance.timeOrigin + t);
    newConnections.push(
      [...far.model.connections, ...far.speech.connections].filter((c) => c.openedAt >= from! && c.openedAt <= to!)
        .length,
    );
  }
  // the answer (300 ms a sentence) heard out, a pause (the browser's microphone keeps its own, GAP_MS, in its loop)
  await sleep(BROWSER ? (WORD_MS ? 2500 : 1000) : GAP_MS);
}
const seconds = (performance.now() - t0) / 1000;
const jitterBuffer = await caller.jitterBuffer();
const cpuPerSecond = (cpuUsOf(child.pid!) - cpu0) / 1e6 / seconds;
othersOn = false;
await Promise.all([...talking, chatting]);
await Promise.all(others.map((o) => o.close()));

const q = (p: number) => quantile(latencies, p);
const report = {
  user: BROWSER ? 'headless Chromium, livekit-client' : '@livekit/rtc-node',
  utterances: N,
  wordMs: WORD_MS,
  /** Calls at once (the measured one included), and whether another user's chat turns streamed meanwhile. */
  calls: CALLS,
  busy: BUSY,
  chatTurns,
  answered: latencies.length,
  unanswered,
  endOfTurnMs: END_OF_TURN_MS,
  targetMs: END_OF_TURN_MS + 150,
  medianMs: Math.round(q(0.5)),
  p95Ms: Math.round(q(0.95)),
  /**
   * The three slowest answers and the utterance each answered: 0 and 1 are a fresh oracle's first turns, whose code
   * runs for the first time and whose heap is still being sized (its first full garbage collections).
   */
  slowest: latencies
    .map((ms, k) => ({ utterance: answeredUtterances[k]!, ms: Math.round(ms) }))
    .sort((a, b) => b.ms - a.ms)
    .slice(0, 3),
  /** The median of each stage (ms): the end-of-turn silence, the oracle's stages, the line each way. */
  stagesMedianMs: Object.fromEntries(Object.entries(perStage).map(([k, v]) => [k, Math.round(quantile(v, 0.5))])),
  /**
   * Of the line from the agent to the user: how long the user's jitter buffer held the agent's audio on average over
   * the call (ms), and the delay it aimed at (WebRTC's inbound-rtp stats).
   */
  userJitterBufferMs: jitterBuffer ? { meanMs: jitterBuffer.meanMs, targetMs: jitterBuffer.targetMs } : null,
  /**
   * With --browser: how late the page read the chunks that place the end of speech and the first sound (median,
   * max ms), against the chunks' own timestamps: the page's main thread busy then (the latency counts it).
   */
  pageReadLateMs: BROWSER
    ? Object.fromEntries(
        Object.entries(readLate).map(([k, v]) => [
          k,
          { median: Number(quantile(v, 0.5).toFixed(1)), max: Number(Math.max(...v).toFixed(1)) },
        ]),
      )
    : null,
  gapMs: GAP_MS,
  synthesisMs: SYNTHESIS_MS,
  /** With --far: the round trip to the services, and the connections opened to them while answers were awaited. */
  far: far
    ? {
        rttMs: FAR_MS,
        idleCloseMs: FAR_IDLE_MS,
        answersThatOpenedConnections: newConnections.filter((n) => n > 0).length,
        connectionsOpened: newConnections.reduce((a, b) => a + b, 0),
      }
    : null,
  loadAverage: loadavg().map((x) => Number(x.toFixed(1))),
  callSeconds: Math.round(seconds),
  /** The oracle process's CPU (its endpoint and agent included), per second of call (of all its calls and turns). */
  oracleCpuSecondsPerCallSecond: Number(cpuPerSecond.toFixed(3)),
  /**
   * How late the oracle's event loop ran at most while each utterance was said and answered (ms; the median and the
   * most over the utterances): its JavaScript (the agent, the turns, the chat) holding up what waited on it.
   */
  oracleEventLoopLateMs: { median: Math.round(quantile(loopMax, 0.5)), max: Math.round(Math.max(...loopMax)) },
};
console.log(JSON.stringify(report, null, 2));
await caller.close();
child.send({ type: 'stop' });
await new Promise((ok) => child.once('exit', ok));
await site?.close();
await far?.model.close();
await far?.speech.close();
await model.close();
await speech.close();
if (web) rmSync(web, { recursive: true, force: true });
process.exit(0);
