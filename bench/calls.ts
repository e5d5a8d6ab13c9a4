/**
 * A voice call's answer latency and CPU (docs/live-agent.md): an oracle with
 * its embedded LiveKit-protocol endpoint, speech-to-text, model and
 * text-to-speech scripted on loopback with no delay, and a user who is a
 * LiveKit participant through @livekit/rtc-node with the call's E2EE key.
 * For each of N utterances (a 600 ms tone, then silence): the time from the
 * end of the user's speech (the last loud frame handed to the user's audio
 * source) to the first loud frame of the agent's answer the user hears.
 * Target: at most CALLS_END_OF_TURN_MS + 150 ms (median and p95).
 * Also the process's CPU per second of call: the oracle, its endpoint and the
 * user's participant share this one process, so it bounds the oracle's share
 * from above.
 *
 * With --word-ms=N the model streams its answer (a long first sentence) one
 * word every N ms, as a hosted model streams tokens, instead of at once.
 *
 * Usage: node bench/calls.ts [utterances=20] [--word-ms=N]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  AudioFrame,
  AudioSource,
  AudioStream,
  LocalAudioTrack,
  Room,
  RoomEvent,
  TrackKind,
  TrackPublishOptions,
  TrackSource,
} from '@livekit/rtc-node';
import { createOracleApp } from '../src/runtime/app.ts';
import { startScriptedModelServer } from '../src/runtime/testing/model-server.ts';
import { say } from '../src/runtime/testing/script.ts';
import { generateMnemonic, generateSigner, signerFromMnemonic } from '../src/lib/keys/keys.ts';
import { mintInvocation } from '../src/lib/ucan/ucan.ts';
import { dbfs } from '../src/runtime/plugins/calls/audio.ts';
import { startSpeechServer, tone } from '../test/helpers/speech-server.ts';

const N = Number(process.argv.slice(2).find((a) => !a.startsWith('--')) ?? 20);
const WORD_MS = Number(process.argv.find((a) => a.startsWith('--word-ms='))?.slice('--word-ms='.length) ?? 0);
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
const END_OF_TURN_MS = 500;
const RATE = 48_000;

const dir = mkdtempSync(join(tmpdir(), 'bench-calls-'));
const stageLines: string[] = [];
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
const perStage: Record<string, number[]> = {};
const model = await startScriptedModelServer();
const speech = await startSpeechServer();
speech.speech.ms = 300;
const mnemonic = generateMnemonic();
const oracle = await signerFromMnemonic(mnemonic);
const app = createOracleApp({
  config: { name: 'Bench Oracle', model: 'scripted-model', oracleDid: oracle.did() },
  dbPath: join(dir, 'oracle.db'),
  // the agent logs where the time to each answer went (voice.ts, stagesLine)
  logger: { info: (l) => void (l.includes('after the end of turn') && stageLines.push(l)), error: () => {} },
  signingMnemonic: mnemonic,
  env: {
    LLM_BASE_URL: model.baseURL,
    CALLS_STT_BASE_URL: speech.baseURL,
    CALLS_TTS_BASE_URL: speech.baseURL,
    CALLS_END_OF_TURN_MS: String(END_OF_TURN_MS),
    LOG_LEVEL: 'silent',
  },
});
const url = await app.listen(0, '127.0.0.1');
const user = await generateSigner();
const req = async (method: string, path: string, body?: unknown) => {
  const res = await fetch(url + path, {
    method,
    headers: {
      authorization: `Bearer ${await mintInvocation({ issuer: user, audience: oracle.did() })}`,
      'content-type': 'application/json',
    },
    body: JSON.stringify(body ?? {}),
  });
  return (await res.json()) as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
};

const { sessionId } = await req('POST', '/sessions', {});
const { callId, encryptionKey } = await req('POST', '/calls', { sessionId });
const { connection } = await req('POST', `/calls/${callId}/sync`);
const room = new Room();
await room.connect(connection.url, connection.token, {
  autoSubscribe: true,
  dynacast: false,
  e2ee: { keyProviderOptions: { sharedKey: new TextEncoder().encode(encryptionKey) } },
});
const source = new AudioSource(RATE, 1, 20); // a 20 ms queue: captureFrame paces in real time
await room.localParticipant!.publishTrack(
  LocalAudioTrack.createAudioTrack('mic', source),
  new TrackPublishOptions({ source: TrackSource.SOURCE_MICROPHONE }),
);
let firstLoudAfter = 0;
let since = Infinity;
room.on(RoomEvent.TrackSubscribed, (t) => {
  if (t.kind !== TrackKind.KIND_AUDIO) return;
  void (async () => {
    for await (const f of new AudioStream(t, RATE, 1)) {
      const now = performance.now();
      if (now > since && !firstLoudAfter && dbfs(f.data) > -40) firstLoudAfter = now;
    }
  })();
});
const send = async (samples: Int16Array) => {
  for (let at = 0; at < samples.length; at += 480) {
    const chunk = samples.slice(at, at + 480);
    await source.captureFrame(new AudioFrame(chunk, RATE, 1, chunk.length));
  }
};
await send(new Int16Array(RATE)); // a second of silence: subscriptions settle

const latencies: number[] = [];
const cpu0 = process.cpuUsage();
const t0 = performance.now();
for (let i = 0; i < N; i++) {
  model.enqueue(answer());
  firstLoudAfter = 0;
  await send(tone(600, RATE, 440, 8000));
  // the frame just handed over leaves after the source's 10 ms queue: the end of speech on the wire
  since = performance.now();
  const before = stageLines.length;
  // room for the answer (a streamed one is longer) before the next utterance
  await send(new Int16Array(Math.round(((END_OF_TURN_MS + 700 + (WORD_MS ? 1500 : 0)) / 1000) * RATE)));
  if (firstLoudAfter) {
    latencies.push(firstLoudAfter - since);
    const stages = stageLines.length === before + 1 ? stagesOf(stageLines.at(-1)!) : undefined;
    if (stages?.['in the oracle'] !== undefined) {
      // what is left: the user's line to the agent (encoding, network, jitter buffer) and back
      stages['the line, both ways'] = firstLoudAfter - since - (stages['end of turn'] ?? 0) - stages['in the oracle'];
      for (const [k, v] of Object.entries(stages)) (perStage[k] ??= []).push(v);
    }
  }
  since = Infinity;
  await send(new Int16Array(RATE / 2));
}
const seconds = (performance.now() - t0) / 1000;
const cpu = process.cpuUsage(cpu0);
const cpuPerSecond = (cpu.user + cpu.system) / 1e6 / seconds;

latencies.sort((a, b) => a - b);
const q = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))]!;
const report = {
  utterances: N,
  wordMs: WORD_MS,
  answered: latencies.length,
  endOfTurnMs: END_OF_TURN_MS,
  targetMs: END_OF_TURN_MS + 150,
  medianMs: Math.round(q(0.5)),
  p95Ms: Math.round(q(0.95)),
  /** The median of each stage (ms): the end-of-turn silence, then the oracle's stages, then the line. */
  stagesMedianMs: Object.fromEntries(
    Object.entries(perStage).map(([k, v]) => [k, Math.round(v.sort((a, b) => a - b)[Math.floor(v.length / 2)]!)]),
  ),
  loadAverage: loadavg().map((x) => Number(x.toFixed(1))),
  callSeconds: Math.round(seconds),
  cpuSecondsPerCallSecond: Number(cpuPerSecond.toFixed(3)),
  callsPerCoreEstimate: Math.floor(1 / cpuPerSecond),
};
console.log(JSON.stringify(report, null, 2));
await room.disconnect();
await app.close();
await model.close();
await speech.close();
rmSync(dir, { recursive: true, force: true });
process.exit(0);
