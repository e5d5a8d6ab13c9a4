/**
 * A voice call from a real browser to a scaffolded oracle: `oraclekit new`
 * (installing an `npm pack` tarball of this checkout), the project started
 * with `npm start` and nothing else (its embedded LiveKit-protocol endpoint),
 * the model and the speech services scripted on loopback. The page is a web
 * developer's: Vite bundles `oraclekit/react/live-agent` with the real
 * `livekit-client`, installed next to oraclekit in the project; headless
 * Chromium (Debian's /usr/bin/chromium, or $CHROMIUM, through playwright-core)
 * calls with end-to-end encryption on and a fake microphone that plays a WAV
 * made by espeak-ng (each time the page opens the microphone, from the start),
 * and a fake camera showing a known picture (a Y4M file) for a video call.
 *
 * The speech-to-text server hears the WAV (as long and as loud), the turn runs
 * with a tool call, the text-to-speech audio is heard in the page (recorded
 * there: as long and as loud as what the server sent), the transcript is in
 * the session's history, a barge-in stops the speech and aborts the turn, and
 * endCall ends the call and the room. A browser without a microphone, or
 * without end-to-end encryption, gets a clear error before a call is made.
 * The last screenshot is kept in test-artifacts/.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser, type Page } from 'playwright-core';
import { ROOT, runCli } from '../helpers/cli.ts';
import { freePort } from '../helpers/loopback.ts';
import { readWav, startSpeechServer, type SpeechServer } from '../helpers/speech-server.ts';
import { voiced } from '../helpers/spoken.ts';
import { callTool, say, startScriptedModelServer, type ScriptedModelServer } from '../helpers/scripted-model-server.ts';
import { wav } from '../../src/calls/audio.ts';
import { OracleClient, generateMnemonic, listCalls, signerFromMnemonic } from '../../src/client/index.ts';
import { NPM_QUIET, scaffoldEnv } from '../helpers/scaffold-env.ts';
import { packAll } from '../helpers/packs.ts';
import { configReady, inPage, serveCallPage, type HeardRow } from '../helpers/call-page.ts';
import { decodePng, meanColour } from '../helpers/png.ts';

const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';
const ARTIFACTS = join(ROOT, 'test-artifacts');
const home = mkdtempSync(join(tmpdir(), 'ok-call-home-'));
const work = mkdtempSync(join(tmpdir(), 'ok-call-work-'));
const env = scaffoldEnv(home, { CI: '', ORACLEKIT_AUTOSTART: '', ...NPM_QUIET });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** The RMS of 16-bit samples. */
const rms = (s: Int16Array) => Math.sqrt(s.reduce((a, x) => a + x * x, 0) / Math.max(1, s.length));

type Row = HeardRow;
/** The rows louder than −40 dBFS: their total length (ms) and RMS (16-bit scale). */
function voicedRows(rows: Row[]): { ms: number; rms: number; rows: Row[] } {
  const loud = rows.filter((r) => r.sq / r.n > (32768 * 10 ** (-40 / 20)) ** 2);
  const ms = loud.reduce((a, r) => a + (r.n / r.rate) * 1000, 0);
  const sq = loud.reduce((a, r) => a + r.sq, 0);
  const n = loud.reduce((a, r) => a + r.n, 0);
  return { ms, rms: Math.sqrt(sq / Math.max(1, n)), rows: loud };
}

let project: { dir: string; did: string; port: number };
let oracle: ChildProcess | undefined;
let log = '';
let model: ScriptedModelServer;
let speech: SpeechServer;
let site: { url: string; close(): Promise<void> } | undefined;
let siteUrl: string;
let oracleUrl: string;
let wavFile: string;

/** The fake camera's picture: red on the left, blue on the right. */
const CAMERA = { width: 640, height: 480, left: [200, 40, 40], right: [40, 60, 200] } as const;

/**
 * The picture as a Y4M file (YUV4MPEG2, 4:2:0) for Chromium's fake camera: BT.601 limited-range YCbCr, the matrix
 * the decoder on the agent's side (libyuv) applies back.
 */
function cameraY4m(): Buffer {
  const { width: w, height: h } = CAMERA;
  const ycc = ([r, g, b]: readonly number[]) => [
    Math.round(16 + 0.257 * r! + 0.504 * g! + 0.098 * b!),
    Math.round(128 - 0.148 * r! - 0.291 * g! + 0.439 * b!),
    Math.round(128 + 0.439 * r! - 0.368 * g! - 0.071 * b!),
  ];
  const [l, r] = [ycc(CAMERA.left), ycc(CAMERA.right)];
  const plane = (pw: number, ph: number, k: number) => {
    const p = Buffer.alloc(pw * ph);
    for (let y = 0; y < ph; y++) for (let x = 0; x < pw; x++) p[y * pw + x] = (x < pw / 2 ? l : r)[k]!;
    return p;
  };
  const frame = [Buffer.from('FRAME\n'), plane(w, h, 0), plane(w / 2, h / 2, 1), plane(w / 2, h / 2, 2)];
  return Buffer.concat([Buffer.from(`YUV4MPEG2 W${w} H${h} F15:1 Ip A1:1 C420jpeg\n`), ...frame, ...frame]);
}
let said: { ms: number; rms: number };
let browser: Browser;

async function until<T>(what: string, f: () => Promise<T> | T, ms = 30_000): Promise<NonNullable<T>> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await f();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out after ${ms} ms waiting for ${what}\n--- oracle log ---\n${log}`);
    await sleep(50);
  }
}

beforeAll(async () => {
  expect(existsSync(CHROMIUM), `headless Chromium is needed at ${CHROMIUM} (scripts/system-deps.sh)`).toBe(true);
  // the user's words: espeak-ng's speech with half a second of silence before (the microphone opening) and after
  const spoken = join(work, 'espeak.wav');
  execFileSync('espeak-ng', ['-w', spoken, 'What time is it in Nairobi?']);
  const w = readWav(readFileSync(spoken));
  // at a microphone's level of speech (−14 dBFS), which the browser's automatic gain control leaves as it is
  const gain = 6500 / voiced(w.samples, w.sampleRate).rms;
  const padded = new Int16Array(w.samples.length + w.sampleRate);
  padded.set(
    w.samples.map((x) => Math.max(-32768, Math.min(32767, Math.round(x * gain)))),
    w.sampleRate / 2,
  );
  wavFile = join(work, 'utterance.wav');
  writeFileSync(wavFile, wav(padded, w.sampleRate));
  said = voiced(padded, w.sampleRate);
  const cameraFile = join(work, 'camera.y4m');
  writeFileSync(cameraFile, cameraY4m());

  // the project, as `oraclekit new` makes it, on this checkout's tarball
  // every package's tarball in one folder (`npm run pack`): `new` takes @oraclekit/calls' from beside oraclekit's
  const packed = packAll(join(work, 'packs')).oraclekit!;
  const port = await freePort();
  const r = await runCli(
    [
      'new',
      'call-oracle',
      '--yes',
      '--no-git',
      '--url',
      `http://127.0.0.1:${port}`,
      '--oraclekit-version',
      `file:${packed}`,
      '--json',
    ],
    { env, cwd: work, timeoutMs: 330_000 },
  );
  expect(r.code, r.stderr).toBe(0);
  project = JSON.parse(r.stdout);
  oracleUrl = `http://127.0.0.1:${port}`;

  // the web page, in the project: livekit-client and React next to oraclekit (docs/live-agent.md), bundled by Vite
  const version = (p: string) =>
    JSON.parse(readFileSync(join(ROOT, 'node_modules', p, 'package.json'), 'utf8')).version;
  execFileSync(
    'npm',
    [
      'install',
      '--no-save',
      '--no-audit',
      '--no-fund',
      ...['react', 'react-dom', 'livekit-client'].map((p) => `${p}@${version(p)}`),
    ],
    { cwd: project.dir, env: { ...process.env, ...env }, stdio: 'ignore', timeout: 150_000 },
  );
  site = await serveCallPage(join(project.dir, 'web'));
  siteUrl = site.url;

  // `npm start`, its model and speech services on loopback (the environment wins over .env)
  model = await startScriptedModelServer();
  speech = await startSpeechServer();
  oracle = spawn('npm', ['start'], {
    cwd: project.dir,
    env: {
      ...process.env,
      ...env,
      LLM_BASE_URL: model.baseURL,
      LLM_PROVIDER_API_KEY: 'sk-test',
      CALLS_STT_BASE_URL: speech.baseURL,
      CALLS_TTS_BASE_URL: speech.baseURL,
      CALLS_END_OF_TURN_MS: '500',
      CORS_ORIGINS: siteUrl,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  oracle.stdout!.on('data', (d: Buffer) => (log += d.toString()));
  oracle.stderr!.on('data', (d: Buffer) => (log += d.toString()));
  await until('npm start', () => log.includes('oracle listening on'), 60_000);

  browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--use-fake-device-for-media-stream',
      '--use-fake-ui-for-media-stream',
      `--use-file-for-fake-audio-capture=${wavFile}%noloop`,
      `--use-file-for-fake-video-capture=${cameraFile}`,
      '--autoplay-policy=no-user-gesture-required',
    ],
  });
}, 600_000);

afterAll(async () => {
  await browser?.close();
  if (oracle?.pid && oracle.exitCode === null) {
    const closed = new Promise((ok) => oracle!.on('close', ok));
    process.kill(-oracle.pid, 'SIGTERM');
    await closed;
  }
  await site?.close();
  await model?.close();
  await speech?.close();
  await runCli(['daemon', 'stop', '--grace', '1'], { env });
  rmSync(home, { recursive: true, force: true });
  rmSync(work, { recursive: true, force: true });
}, 120_000);

/** A user of the page: its key (in the page's URL), a session of its own, and a headless client for the checks. */
async function user() {
  const mnemonic = await generateMnemonic();
  const client = await OracleClient.connect({ baseUrl: oracleUrl, signer: await signerFromMnemonic(mnemonic) });
  const { sessionId } = await client.createSession();
  const query = new URLSearchParams({ oracle: oracleUrl, did: project.did, session: sessionId, mnemonic });
  return { client, sessionId, url: `${siteUrl}/?${query}` };
}

async function open(b: Browser, url: string, init?: () => void): Promise<Page> {
  const page = await b.newPage();
  page.on('pageerror', (e) => console.error('page error:', e.message));
  if (init) await page.addInitScript(init);
  await page.goto(url);
  // the oracle's configuration (its URL, given here) is ready before a call
  await configReady(page);
  return page;
}

const heardSince = (page: Page, since: number) => inPage(page, 'heard', since);

describe('a voice call from headless Chromium to an oracle started with npm start', () => {
  it('is heard, answered with a tool call and heard back, interrupted by the user, kept in history and ended', async () => {
    const u = await user();
    const page = await open(browser, u.url);
    const started = await inPage(page, 'start');
    expect(started, `${JSON.stringify(started)}\n${log}`).toMatchObject({ ok: true });
    const callId = started.callId as string;
    const state = await inPage(page, 'state');
    expect(state).toMatchObject({ isReady: true, room: 'connected', e2ee: true, remote: [project.did] });
    await until('the agent hearing the user', () => log.includes(`${callId}: the agent hears the user`));

    // the user asks; the model calls the project's tool, then answers in two sentences
    speech.transcripts.push('What time is it in Nairobi?');
    model.enqueue(
      callTool('get_local_time', { timeZone: 'Africa/Nairobi' }, 'c1'),
      say('It is evening in Nairobi. Enjoy the sunset.'),
    );
    const t0 = await inPage(page, 'say');
    await until('the utterance transcribed', () => speech.heard.length === 1);
    await until('two sentences spoken', () => speech.spoken.length === 2);
    const sent = speech.spoken.reduce((n, s) => n + s.samples.length, 0) / 24;
    await until('the answer heard in the page', async () => voicedRows(await heardSince(page, t0)).ms >= sent * 0.85);
    await sleep(1500);

    // the speech-to-text server got the WAV's speech: as long (plus the end-of-turn silence) and as loud
    const heard = speech.heard[0]!;
    expect(heard.language).toBe('en');
    const got = voiced(heard.samples, heard.sampleRate);
    const stt = JSON.stringify({ said, got });
    expect(got.ms / said.ms, stt).toBeGreaterThan(0.8);
    expect(got.ms / said.ms, stt).toBeLessThan(1.25);
    expect(got.rms / said.rms, stt).toBeGreaterThan(0.7);
    expect(got.rms / said.rms, stt).toBeLessThan(1.4);

    // the page heard the text-to-speech audio: as long and as loud as what the server sent
    expect(speech.spoken.map((s) => s.input)).toEqual(['It is evening in Nairobi.', 'Enjoy the sunset.']);
    const answer = voicedRows(await heardSince(page, t0));
    const sentRms = rms(speech.spoken[0]!.samples);
    const tts = JSON.stringify({ sent, heard: answer.ms, rms: answer.rms, sentRms });
    expect(answer.ms / sent, tts).toBeGreaterThan(0.85);
    expect(answer.ms / sent, tts).toBeLessThan(1.15);
    expect(answer.rms / sentRms, tts).toBeGreaterThan(0.7);
    expect(answer.rms / sentRms, tts).toBeLessThan(1.3);

    // the transcript is the session's history, with the tool call
    const history = await u.client.history(u.sessionId);
    expect(history.filter((m) => typeof m.content === 'string').map((m) => [m.type, m.content])).toEqual([
      ['human', 'What time is it in Nairobi?'],
      ['ai', 'It is evening in Nairobi. Enjoy the sunset.'],
    ]);
    expect(JSON.stringify(history)).toContain('"get_local_time"');

    // barge-in: a long answer is being spoken when the user speaks again; the speech stops and the turn is aborted
    speech.transcripts.push('Tell me a long story.');
    speech.speech.ms = 8000;
    model.enqueue({
      steps: [
        { type: 'text', text: 'Once upon a time there was a stove. ' },
        { type: 'delay', ms: 15_000 },
        { type: 'text', text: 'The end.' },
      ],
    });
    const t1 = await inPage(page, 'say');
    await until('the story heard', async () => voicedRows(await heardSince(page, t1)).ms > 500);
    speech.transcripts.push('Stop.');
    speech.speech.ms = 600;
    model.enqueue(say('Okay.'));
    const t2 = await inPage(page, 'say');
    await until('the barge-in answered', () => speech.spoken.length === 4, 45_000);
    await sleep(1500);
    // the WAV's speech starts 0.5 s after the microphone opens: from 1.5 s on, the story's 8 s are not heard
    const during = voicedRows((await heardSince(page, t2 + 1500)).filter((r) => r.at < t2 + 2500));
    expect(during.ms).toBeLessThan(100);
    const after = await u.client.history(u.sessionId);
    const story = after.filter((m) => typeof m.content === 'string' && m.content.startsWith('Once'));
    expect(story, `${JSON.stringify(after)}\n${log}`).toHaveLength(1);
    expect(story[0]!.content).not.toContain('The end.');
    // the interrupted turn ended aborted, as Esc ends one in chat; the barge-in's own turn was answered
    const turnOf = (said: string) => after.find((m) => m.type === 'human' && m.content === said)?.turn?.status;
    expect(turnOf('Tell me a long story.')).toBe('aborted');
    expect(turnOf('Stop.')).toBe('finished');
    expect(turnOf('What time is it in Nairobi?')).toBe('finished');
    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: join(ARTIFACTS, 'calls-browser.png') });

    // endCall: the page leaves, the call is ended, the agent leaves and the room is closed
    await inPage(page, 'end');
    expect(await inPage(page, 'state')).toMatchObject({ room: 'disconnected', isReady: false });
    const calls = await listCalls(u.client, {});
    expect(calls.calls.find((c) => c.callId === callId)?.callStatus).toBe('ended');
    await until('the agent out of the room', () => log.includes(`${project.did} left room`));
    await page.close();
  }, 240_000);
});

describe('a video call from headless Chromium', () => {
  it("publishes the page's camera with useLiveAgent; look_at_camera gives the model its picture, or says it is off", async () => {
    const u = await user();
    const page = await open(browser, u.url);
    const started = await inPage(page, 'start', 'video');
    expect(started, `${JSON.stringify(started)}\n${log}`).toMatchObject({ ok: true });
    const callId = started.callId as string;
    await until('the agent receiving the camera', () =>
      log.includes(`${callId}: the agent receives the user's camera`),
    );
    await sleep(1500); // a key frame decoded on the agent's side

    speech.transcripts.push('What am I showing you?');
    const before = model.requests.length;
    const spoken = speech.spoken.length;
    model.enqueue(callTool('look_at_camera', {}, 'v1'), say('A red and blue card.'));
    await inPage(page, 'say');
    await until('the answer spoken', () => speech.spoken.slice(spoken).some((s) => s.input === 'A red and blue card.'));
    const answering = model.requests
      .slice(before)
      .find((r) => r.body.messages.some((m) => m.role === 'tool' && m.tool_call_id === 'v1'))!.body;
    type Part = { type: string; image_url?: { url: string } };
    const urls = answering.messages
      .filter((m) => m.role === 'user' && Array.isArray(m.content))
      .flatMap((m) => (m.content as Part[]).filter((p) => p.type === 'image_url').map((p) => p.image_url!.url));
    expect(urls).toHaveLength(1);
    const png = decodePng(Buffer.from(urls[0]!.replace(/^data:image\/png;base64,/, ''), 'base64'));
    // the camera's 640×480 fits within 768 px: sent as it is (libwebrtc may lower it on a busy machine)
    expect(png.width / png.height).toBeCloseTo(CAMERA.width / CAMERA.height, 1);
    expect(png.width).toBeLessThanOrEqual(CAMERA.width);
    const left = meanColour(png, 0.05, 0.4, 0.1, 0.9);
    const right = meanColour(png, 0.6, 0.95, 0.1, 0.9);
    for (let k = 0; k < 3; k++) {
      expect(Math.abs(left[k]! - CAMERA.left[k]!), `left ${left}`).toBeLessThan(20);
      expect(Math.abs(right[k]! - CAMERA.right[k]!), `right ${right}`).toBeLessThan(20);
    }

    // the user turns the camera off (livekit-client mutes the track): the model is told, no picture is sent
    await inPage(page, 'camera', 'off');
    await sleep(500);
    const [requests, spokenBefore] = [model.requests.length, speech.spoken.length];
    speech.transcripts.push('And now?');
    model.enqueue(callTool('look_at_camera', {}, 'v2'), say('Your camera is off.'));
    await inPage(page, 'say');
    await until('the second answer', () =>
      speech.spoken.slice(spokenBefore).some((s) => s.input === 'Your camera is off.'),
    );
    const told = model.requests
      .slice(requests)
      .find((r) => r.body.messages.some((m) => m.role === 'tool' && m.tool_call_id === 'v2'))!.body;
    expect(told.messages.find((m) => m.tool_call_id === 'v2')!.content).toContain("the user's camera is off");
    // nor is the earlier picture: the history kept its size, not its pixels
    expect(JSON.stringify(told.messages)).not.toContain('image_url');
    await inPage(page, 'end');
    await page.close();
  }, 120_000);
});

describe('a browser that cannot make an encrypted call', () => {
  it('without a microphone: useLiveAgent says so (microphone_unavailable) and no call is made', async () => {
    const bare = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox'] });
    try {
      const u = await user();
      const page = await open(bare, u.url);
      const r = await inPage(page, 'start');
      expect(r).toMatchObject({ ok: false, name: 'LiveAgentError', code: 'microphone_unavailable' });
      expect(r.message).toMatch(/^no microphone for the call: (NotFoundError|NotAllowedError): /);
      expect(await page.getByRole('alert').textContent()).toBe(r.message);
      expect((await listCalls(u.client)).total).toBe(0);
    } finally {
      await bare.close();
    }
  }, 60_000);

  it('without end-to-end encryption (no insertable streams, no RTCRtpScriptTransform): e2ee_unsupported, no call made', async () => {
    const u = await user();
    const page = await open(browser, u.url, () => {
      delete (RTCRtpSender.prototype as { createEncodedStreams?: unknown }).createEncodedStreams;
      delete (window as { RTCRtpScriptTransform?: unknown }).RTCRtpScriptTransform;
    });
    const r = await inPage(page, 'start');
    expect(r).toMatchObject({ ok: false, name: 'LiveAgentError', code: 'e2ee_unsupported' });
    expect(r.message).toMatch(/cannot encrypt a call end to end/);
    expect(await page.getByRole('alert').textContent()).toBe(r.message);
    expect((await listCalls(u.client)).total).toBe(0);
    await page.close();
  }, 60_000);
});
