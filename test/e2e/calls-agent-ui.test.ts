/**
 * A call from a page built on LiveKit's own UI (`@livekit/components-react`: useVoiceAssistant, BarVisualizer,
 * useTranscriptions) around useLiveAgent's room, in headless Chromium against an oracle in a process of its own (its
 * embedded endpoint, model and speech services scripted on loopback). The page's microphone is a Web Audio graph the
 * test plays into. It shows: the agent's state reaching "speaking" and both sides' transcripts as LiveKit's hooks
 * read them; a short burst of speech-like noise during an answer pausing it and the answer resuming (a false
 * interruption); words over an answer stopping it, the history keeping what was heard; no barge-in after a finished
 * answer; a call started before the page's configuration is ready; the oracle killed mid-call named in the page's
 * error, and endCall after it not throwing; an oracle without calls saying so. With useLiveAgent reading the
 * transcript itself: the call's greeting in it, said once the page hears the agent; a muted microphone unheard until it is unmuted, the answer streamed sentence by sentence and
 * both sides final; with Chromium's fake devices, the microphones and cameras listed and the ones a video call
 * publishes switched.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { chromium, type Browser, type Page } from 'playwright-core';
import { ROOT } from '../helpers/cli.ts';
import { startSpeechServer, type SpeechServer } from '../helpers/speech-server.ts';
import { espeak } from '../helpers/spoken.ts';
import { say, startScriptedModelServer, type ScriptedModelServer } from '../helpers/scripted-model-server.ts';
import { CHECKOUT_ALIAS, serveCallPage } from '../helpers/call-page.ts';
import { OracleClient, generateMnemonic, signerFromMnemonic } from '../../src/client/index.ts';
import { wav } from '../../src/calls/audio.ts';

const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The page: LiveKit's agent UI on useLiveAgent's room, and a microphone the test plays into. */
const PAGE = `
import { useEffect, useRef, useState } from 'react';
import { createRoot } from 'react-dom/client';
import { RoomContext, useVoiceAssistant, BarVisualizer, useTranscriptions } from '@livekit/components-react';
import { OraclesProvider } from 'oraclekit/react';
import { useLiveAgent } from 'oraclekit/react/live-agent';

const q = new URLSearchParams(location.search);
// own: useLiveAgent reads the transcript itself, and the page shows it (LiveKit's hooks stay off the topic)
const own = q.has('own');
const seen = [];
/** Every transcript useLiveAgent gave the page, in order. */
const transcripts = [];

function AgentView() {
  const { state, audioTrack } = useVoiceAssistant();
  const transcriptions = useTranscriptions();
  useEffect(() => void seen.push(state), [state]);
  return (
    <section>
      <p data-testid="agent-state">{state}</p>
      <BarVisualizer state={state} track={audioTrack} barCount={5} />
      <ul>
        {transcriptions.map((t) => (
          <li key={t.streamInfo.id} data-identity={t.participantInfo.identity}
              data-final={t.streamInfo.attributes['lk.transcription_final']}>{t.text}</li>
        ))}
      </ul>
    </section>
  );
}

function OwnTranscript({ transcript }) {
  return (
    <ul>
      {transcript.map((t) => (
        <li key={t.id} data-identity={t.identity} data-final={String(t.final)}>{t.text}</li>
      ))}
    </ul>
  );
}

/** The page's published microphone and camera: what the browser captures for them. */
function published(room) {
  const out = {};
  for (const p of room.localParticipant.trackPublications.values()) {
    const t = p.track?.mediaStreamTrack;
    if (t) out[p.source] = { deviceId: t.getSettings().deviceId, enabled: t.enabled, muted: p.isMuted };
  }
  return out;
}

function Call() {
  // LiveKit's hooks read the room's transcripts unless the page reads useLiveAgent's (a topic has one reader)
  const live = useLiveAgent(q.get('did'), { overrides: { baseUrl: q.get('oracle') }, transcript: own });
  const ref = useRef(live);
  ref.current = live;
  useEffect(() => void transcripts.push(live.transcript), [live.transcript]);
  const done = (p) => p.then(() => ({ ok: true }), (e) => ({ ok: false, message: e.message }));
  window.call = {
    start: (callType = 'audio', greeting) =>
      ref.current.callAgent({ callType, sessionId: q.get('session'), language: 'en', greeting }).then(
        (r) => ({ ok: true, callId: r.callId }),
        (e) => ({ ok: false, code: e.code, name: e.name, message: e.message }),
      ),
    end: () => done(ref.current.endCall()),
    mute: (on) => done(ref.current.setMuted(on)),
    setMicrophone: (id) => done(ref.current.setMicrophone(id)),
    setCamera: (id) => done(ref.current.setCamera(id)),
    seen: () => seen,
    transcripts: () => transcripts,
    published: () => published(ref.current.room),
    live: () => {
      const l = ref.current;
      return {
        agentState: l.agentState,
        muted: l.muted,
        error: l.error?.message,
        microphones: l.microphones,
        cameras: l.cameras,
        microphoneId: l.microphoneId,
        cameraId: l.cameraId,
      };
    },
  };
  return (
    <RoomContext.Provider value={live.room}>
      <main>
        {live.error && <p role="alert">{live.error.message}</p>}
        {own ? <OwnTranscript transcript={live.transcript} /> : <AgentView />}
      </main>
    </RoomContext.Provider>
  );
}

createRoot(document.getElementById('root')).render(
  <OraclesProvider initialWallet={{ did: window.signer.did(), signer: window.signer }}>
    <Call />
  </OraclesProvider>,
);
`;

interface Oracle {
  url: string;
  did: string;
  child: ChildProcess;
  log: () => string;
}

/** An oracle in its own process (test/helpers/call-oracle.ts), its log kept. */
async function startOracle(o: { env: Record<string, string>; features?: Record<string, boolean> }, origin: string) {
  const mnemonic = await generateMnemonic();
  const did = (await signerFromMnemonic(mnemonic)).did();
  const child = spawn(
    process.execPath,
    [join(ROOT, 'test/helpers/call-oracle.ts'), JSON.stringify({ ...o, mnemonic, corsOrigins: [origin] })],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let log = '';
  child.stdout!.on('data', (d: Buffer) => (log += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (log += d.toString()));
  const url = await until(
    'the oracle listening',
    () => /^listening (http\S+)$/m.exec(log)?.[1],
    60_000,
    () => log,
  );
  return { url, did, child, log: () => log } satisfies Oracle;
}

async function until<T>(what: string, f: () => Promise<T> | T, ms = 30_000, log?: () => string) {
  const end = Date.now() + ms;
  for (;;) {
    const v = await f();
    if (v) return v as NonNullable<T>;
    if (Date.now() > end) throw new Error(`timed out after ${ms} ms waiting for ${what}\n${log?.() ?? ''}`);
    await sleep(50);
  }
}

let model: ScriptedModelServer;
let speech: SpeechServer;
let site: { url: string; close(): Promise<void> };
let browser: Browser;
let web: string;
let sentence: Int16Array;
const oracles: Oracle[] = [];

beforeAll(async () => {
  model = await startScriptedModelServer();
  speech = await startSpeechServer();
  mkdirSync(join(ROOT, 'test-artifacts'), { recursive: true });
  web = mkdtempSync(join(ROOT, 'test-artifacts/agent-ui-page-'));
  site = await serveCallPage(web, CHECKOUT_ALIAS, PAGE);
  sentence = (await espeak('What is a clean cookstove?', 48_000)).samples;
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--use-fake-ui-for-media-stream', '--autoplay-policy=no-user-gesture-required'],
  });
}, 180_000);

/**
 * A browser with Chromium's fake devices (three microphones, two cameras), for a page that uses the browser's own;
 * they capture silence, so the agent hears nothing from them.
 */
async function launchWithFakeDevices(): Promise<Browser> {
  const silence = join(web, 'silence.wav');
  writeFileSync(silence, wav(new Int16Array(48_000), 48_000));
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--use-fake-ui-for-media-stream',
      '--use-fake-device-for-media-stream=device-count=2',
      `--use-file-for-fake-audio-capture=${silence}`,
    ],
  });
}

afterAll(async () => {
  await browser?.close();
  for (const o of oracles) if (o.child.exitCode === null) o.child.kill('SIGTERM');
  await site?.close();
  await model?.close();
  await speech?.close();
  if (web) rmSync(web, { recursive: true, force: true });
});

/**
 * A page of a new user of `oracle`, its microphone a Web Audio graph (window.mic.play(samples) speaks into it), or
 * in `o.devices` (a browser of launchWithFakeDevices) the browser's fake microphones and cameras; with `own` the page
 * shows useLiveAgent's transcript.
 */
async function open(
  oracle: Oracle,
  o: { own?: boolean; devices?: Browser } = {},
): Promise<{ page: Page; client: OracleClient; sessionId: string }> {
  const mnemonic = await generateMnemonic();
  const client = await OracleClient.connect({ baseUrl: oracle.url, signer: await signerFromMnemonic(mnemonic) });
  const { sessionId } = await client.createSession();
  const page = await (o.devices ?? browser).newPage();
  page.on('pageerror', (e) => console.error('page error:', e.message));
  // the page's microphone: a Web Audio graph, unless the page uses the browser's own devices
  await page.addInitScript((webAudio) => {
    if (!webAudio) return;
    const ctx = new AudioContext({ sampleRate: 48_000 });
    const mic = ctx.createMediaStreamDestination();
    const silence = ctx.createConstantSource();
    silence.offset.value = 0;
    silence.connect(mic);
    silence.start();
    navigator.mediaDevices.getUserMedia = async () => new MediaStream([mic.stream.getAudioTracks()[0]!.clone()]);
    (window as unknown as { mic: unknown }).mic = {
      play: async (samples: number[]) => {
        await ctx.resume();
        const b = ctx.createBuffer(1, samples.length, 48_000);
        b.getChannelData(0).set(samples.map((x) => x / 32768));
        const s = ctx.createBufferSource();
        s.buffer = b;
        s.connect(mic);
        const ended = new Promise((r) => (s.onended = r));
        s.start();
        await ended;
      },
    };
  }, !o.devices);
  const query = new URLSearchParams({ oracle: oracle.url, did: oracle.did, session: sessionId, mnemonic });
  if (o.own) query.set('own', '');
  await page.goto(`${site.url}/?${query}`);
  await page.waitForFunction(() => (window as unknown as { call?: unknown }).call !== undefined);
  return { page, client, sessionId };
}

type PageCall = Record<string, (...args: unknown[]) => unknown>;
const call = <T>(page: Page, m: string, ...args: unknown[]) =>
  page.evaluate(([m, args]) => (window as unknown as { call: PageCall }).call[m]!(...args), [
    m,
    args,
  ] as const) as Promise<T>;
const play = (page: Page, samples: Int16Array) =>
  page.evaluate((s) => (window as unknown as { mic: { play(s: number[]): Promise<void> } }).mic.play(s), [...samples]);
const live = (page: Page) => call<{ agentState: string; muted: boolean; error?: string }>(page, 'live');
const transcript = (page: Page) =>
  page.$$eval('li', (els) =>
    els.map((e) => ({ identity: e.dataset.identity, final: e.dataset.final, text: e.textContent ?? '' })),
  );
const answerOf = async (client: OracleClient, sessionId: string, asked: string) => {
  const h = await client.history(sessionId);
  const at = h.findIndex((m) => m.type === 'human' && m.content === asked);
  return { turn: h[at]?.turn?.status, answer: h.slice(at + 1).find((m) => m.type === 'ai')?.content };
};

describe("a page on LiveKit's agent UI, calling an oracle in a process of its own", () => {
  it('shows the agent speaking and both transcripts; pauses for noise and resumes; keeps what was heard of a cut answer; reports the oracle killed', async () => {
    const oracle = await startOracle(
      {
        env: {
          LLM_BASE_URL: model.baseURL,
          LLM_PROVIDER_API_KEY: 'sk-test',
          CALLS_STT_BASE_URL: speech.baseURL,
          CALLS_TTS_BASE_URL: speech.baseURL,
          CALLS_END_OF_TURN_MS: '400',
          CALLS_MIN_INTERRUPTION_MS: '100',
        },
      },
      site.url,
    );
    oracles.push(oracle);
    const { page, client, sessionId } = await open(oracle);
    const log = oracle.log;

    // called at once, before the page's configuration is resolved: the call waits for it
    const started = await call<{ ok: boolean; callId: string }>(page, 'start');
    expect(started, `${JSON.stringify(started)}\n${log()}`).toMatchObject({ ok: true });
    await until(
      'the agent listening',
      async () => (await page.textContent('[data-testid=agent-state]')) === 'listening',
      30_000,
      log,
    );

    // a question and its answer: the agent speaks; both sides' transcripts reach LiveKit's hooks
    speech.speech.ms = 1500;
    speech.transcripts.push('What is a clean cookstove?');
    model.enqueue(say('A stove that burns less wood. It saves fuel and time.'));
    await play(page, sentence);
    await until(
      'the answer finished',
      async () => (await answerOf(client, sessionId, 'What is a clean cookstove?')).turn === 'finished',
      30_000,
      log,
    );
    // the turn is stored as its speech starts: the page hears of the agent's state from the room a moment later
    await until('the page seeing the agent speak', async () =>
      (await call<string[]>(page, 'seen')).includes('speaking'),
    );
    await until('the agent listening again', async () => (await live(page)).agentState === 'listening');
    expect(await call<string[]>(page, 'seen')).toEqual(expect.arrayContaining(['listening', 'thinking', 'speaking']));
    const lines = await until('both transcripts final', async () => {
      const t = await transcript(page);
      return t.length === 2 && t.every((x) => x.final === 'true') ? t : undefined;
    });
    const me = await page.evaluate(() => (window as unknown as { signer: { did(): string } }).signer.did());
    expect(lines).toEqual([
      { identity: me, final: 'true', text: 'What is a clean cookstove?' },
      { identity: oracle.did, final: 'true', text: 'A stove that burns less wood. It saves fuel and time.' },
    ]);
    // no barge-in after an answer that finished
    expect(log()).not.toContain('barge-in');

    // a false interruption: 150 ms of noise loud enough to be taken for speech, no words in it; the answer resumes
    speech.speech.ms = 2500;
    speech.transcripts.push('Tell me more.', '');
    model.enqueue(say('Clean stoves burn biomass more completely. They cut smoke in the kitchen.'));
    await play(page, sentence);
    await until('the answer spoken', () => speech.spoken.length >= 3);
    await sleep(800);
    await play(page, sentence.slice(sentence.length / 3, sentence.length / 3 + 0.15 * 48_000));
    await until('the answer resumed', () => log().includes('a false interruption'), 15_000, log);
    const more = await until('the resumed answer finished', async () => {
      const a = await answerOf(client, sessionId, 'Tell me more.');
      return a.turn === 'finished' ? a : undefined;
    });
    expect(more.answer).toBe('Clean stoves burn biomass more completely. They cut smoke in the kitchen.');
    await until('the resumed answer spoken to its end', async () => (await live(page)).agentState === 'listening');
    expect(log()).not.toContain('barge-in');

    // words over an answer: it stops, the history keeps what was heard of it
    speech.speech.ms = 6000;
    speech.transcripts.push('Tell me a long story.', 'Stop.');
    model.enqueue(say('Once upon a time there was a stove in a kitchen. It burned wood all day long.'), say('Okay.'));
    await play(page, sentence);
    await until('the story playing', async () => (await live(page)).agentState === 'speaking');
    await sleep(2000);
    await play(page, sentence);
    await until('the barge-in', () => log().includes('barge-in'), 15_000, log);
    let last: unknown;
    // its turn may have ended (the text all streamed) while its speech played: either way its row is what was heard
    const story = await until(
      'the story stored as heard',
      async () => {
        const a = await answerOf(client, sessionId, 'Tell me a long story.');
        last = a;
        return a.turn && a.answer !== 'Once upon a time there was a stove in a kitchen. It burned wood all day long.'
          ? a
          : undefined;
      },
      30_000,
      () => `${JSON.stringify(last)}\n${log()}`,
    );
    expect(typeof story.answer).toBe('string');
    expect(
      'Once upon a time there was a stove in a kitchen.'.startsWith(story.answer as string),
      String(story.answer),
    ).toBe(true);
    expect((story.answer as string).length).toBeGreaterThan(0);
    expect(story.answer).not.toContain('burned');
    await until('the story final in the transcript', async () =>
      (await transcript(page)).some((t) => t.final === 'true' && t.text === story.answer),
    );

    // the oracle dies mid-call: the page's error names it; endCall does not throw
    oracle.child.kill('SIGKILL');
    const alert = await until('the drop shown', () => page.textContent('[role=alert]').catch(() => null), 60_000);
    expect(alert).toMatch(/^the call dropped: /);
    expect(await call(page, 'end')).toEqual({ ok: true });
    await page.close();
  }, 240_000);

  it('an oracle without calls: the page says "this oracle does not offer calls"', async () => {
    const oracle = await startOracle({ env: { LLM_BASE_URL: model.baseURL }, features: { calls: false } }, site.url);
    oracles.push(oracle);
    const { page } = await open(oracle);
    const r = await call<{ ok: boolean; code: string; message: string }>(page, 'start');
    expect(r).toMatchObject({ ok: false, code: 'calls_unavailable' });
    expect(r.message).toMatch(/^this oracle does not offer calls/);
    expect(await page.textContent('[role=alert]')).toBe(r.message);
    await page.close();
  }, 60_000);
});

describe("useLiveAgent's own transcript, mute and devices, in headless Chromium", () => {
  // a model and speech services of their own: nothing another test queued is answered here
  let ownModel: ScriptedModelServer;
  let ownSpeech: SpeechServer;
  let shared: Oracle | undefined;
  beforeAll(async () => {
    ownModel = await startScriptedModelServer();
    ownSpeech = await startSpeechServer();
  });
  afterAll(async () => {
    await ownModel?.close();
    await ownSpeech?.close();
  });
  /** One oracle for these calls, started by the first. */
  async function oracleOnce(): Promise<Oracle> {
    if (shared) return shared;
    const o = await startOracle(
      {
        env: {
          LLM_BASE_URL: ownModel.baseURL,
          LLM_PROVIDER_API_KEY: 'sk-test',
          CALLS_STT_BASE_URL: ownSpeech.baseURL,
          CALLS_TTS_BASE_URL: ownSpeech.baseURL,
          CALLS_END_OF_TURN_MS: '400',
        },
      },
      site.url,
    );
    oracles.push(o);
    return (shared = o);
  }

  it("says the call's greeting to the page; setMuted(true) keeps the user unheard until unmuted; transcript streams the answer and holds both sides", async () => {
    const oracle = await oracleOnce();
    const log = oracle.log;
    const { page } = await open(oracle, { own: true });
    const me = await page.evaluate(() => (window as unknown as { signer: { did(): string } }).signer.did());
    const greeting = 'Hello, I am listening.';
    const started = await call<{ ok: boolean }>(page, 'start', 'audio', greeting);
    expect(started, `${JSON.stringify(started)}\n${log()}`).toMatchObject({ ok: true });
    // the agent joins the room before the page does, and says the greeting once the page hears it: it is in the
    // page's transcript, final
    await until(
      'the greeting in the transcript',
      async () =>
        (await transcript(page)).some((x) => x.identity === oracle.did && x.final === 'true' && x.text === greeting),
      30_000,
      log,
    );
    await until('the agent listening', async () => (await live(page)).agentState === 'listening', 30_000, log);

    // muted: what the user says does not reach the agent
    expect(await call(page, 'mute', true)).toEqual({ ok: true });
    expect((await live(page)).muted).toBe(true);
    expect((await call<Record<string, { muted: boolean }>>(page, 'published')).microphone).toMatchObject({
      muted: true,
    });
    const heard = ownSpeech.heard.length;
    await play(page, sentence);
    await sleep(2500);
    expect(ownSpeech.heard.length, log()).toBe(heard);

    // unmuted: heard and answered; the answer streams sentence by sentence as it is spoken (interim), then both
    // sides are in the transcript, final
    expect(await call(page, 'mute', false)).toEqual({ ok: true });
    expect((await live(page)).muted).toBe(false);
    const answer = 'A stove that burns less wood. It saves fuel and time.';
    ownSpeech.transcripts.push('What is a clean cookstove?');
    // each sentence's speech 1.5 s long: the agent's audio source queues up to 1 s ahead of what is heard, so the
    // second sentence starts 0.5 s after the first, not at once, and a busy machine does not deliver both in one piece
    ownSpeech.speech.ms = 1500;
    onTestFinished(() => {
      ownSpeech.speech.ms = 600;
    });
    ownModel.enqueue(say(answer));
    await play(page, sentence);
    const lines = await until(
      'both sides final',
      async () => {
        const t = await transcript(page);
        return t.length === 3 && t.every((x) => x.final === 'true') ? t : undefined;
      },
      30_000,
      log,
    );
    expect(lines).toEqual([
      { identity: oracle.did, final: 'true', text: greeting },
      { identity: me, final: 'true', text: 'What is a clean cookstove?' },
      { identity: oracle.did, final: 'true', text: answer },
    ]);
    expect(ownSpeech.heard.length).toBe(heard + 1);
    type Segment = { speaker: string; identity: string; text: string; final: boolean };
    const given = await call<Segment[][]>(page, 'transcripts');
    const agent = given.flat().filter((x) => x.speaker === 'agent' && x.identity === oracle.did);
    expect(agent.filter((x) => !x.final && x.text !== greeting)[0]?.text, JSON.stringify(agent)).toBe(
      'A stove that burns less wood.',
    );
    expect(agent.at(-1)).toMatchObject({ text: answer, final: true });
    expect(await call(page, 'end')).toEqual({ ok: true });
    await page.close();
  }, 120_000);

  it("lists the browser's microphones and cameras and switches the ones a video call publishes", async () => {
    const oracle = await oracleOnce();
    const devices = await launchWithFakeDevices();
    onTestFinished(() => devices.close());
    const { page } = await open(oracle, { devices });
    const started = await call<{ ok: boolean }>(page, 'start', 'video');
    expect(started, `${JSON.stringify(started)}\n${oracle.log()}`).toMatchObject({ ok: true });
    type Devices = {
      microphones: { deviceId: string; label: string }[];
      cameras: { deviceId: string; label: string }[];
      microphoneId?: string;
      cameraId?: string;
    };
    const d = await until('the devices listed', async () => {
      const x = (await live(page)) as unknown as Devices;
      return x.microphones.length === 3 && x.cameras.length === 2 ? x : undefined;
    });
    expect(d.microphones.map((m) => m.label)).toEqual([
      'Fake Default Audio Input',
      'Fake Audio Input 1',
      'Fake Audio Input 2',
    ]);
    expect(d.cameras.map((c) => c.label)).toEqual(['fake_device_0', 'fake_device_1']);
    type Published = Record<string, { deviceId: string }>;
    await until('both tracks published', async () => {
      const p = await call<Published>(page, 'published');
      return p.microphone && p.camera;
    });
    const before = await call<Published>(page, 'published');
    const mic = d.microphones.find((m) => m.deviceId !== before.microphone!.deviceId && m.deviceId !== 'default')!;
    const cam = d.cameras.find((c) => c.deviceId !== before.camera!.deviceId)!;

    expect(await call(page, 'setMicrophone', mic.deviceId)).toEqual({ ok: true });
    expect(await call(page, 'setCamera', cam.deviceId)).toEqual({ ok: true });
    // the hook says which devices are in use, and they are the ones the call now captures
    const now = await until('the devices in use', async () => {
      const x = (await live(page)) as unknown as Devices;
      return x.microphoneId === mic.deviceId && x.cameraId === cam.deviceId ? x : undefined;
    });
    expect(now).toMatchObject({ microphoneId: mic.deviceId, cameraId: cam.deviceId });
    const after = await call<Published>(page, 'published');
    expect(after.microphone!.deviceId).toBe(mic.deviceId);
    expect(after.camera!.deviceId).toBe(cam.deviceId);
    expect(await call(page, 'end')).toEqual({ ok: true });
    await page.close();
  }, 120_000);
});
