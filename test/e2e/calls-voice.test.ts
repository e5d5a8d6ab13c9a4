/**
 * A voice call through the embedded LiveKit-protocol endpoint of a real
 * runtime, end-to-end encrypted: the user is a LiveKit participant through
 * @livekit/rtc-node (libwebrtc, Opus, LiveKit's frame encryption), the oracle's
 * agent another; speech and text services are scripted on loopback. The
 * speech-to-text server hears what the user said, the turn runs (a tool call
 * included) and lands in the session's history, the answer's speech reaches
 * the user, barge-in stops it, a wrong key hears nothing, and the endpoint
 * never forwards a clear Opus frame.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AudioFrame,
  AudioSource,
  AudioStream,
  LocalAudioTrack,
  ParticipantKind,
  Room,
  RoomEvent,
  TrackKind,
  TrackPublishOptions,
  TrackSource,
} from '@livekit/rtc-node';
import { startHarness, type Harness } from '../helpers/runtime-harness.ts';
import { startSpeechServer, type SpeechServer } from '../helpers/speech-server.ts';
import { connectionOf, startRelay, targetOf, type Relay } from '../helpers/tcp-relay.ts';
import { espeak, voiced as voicedIn } from '../helpers/spoken.ts';
import { callTool, say } from '../helpers/scripted-model-server.ts';
import { AccessToken } from 'livekit-server-sdk';
import { dbfs } from '../../src/calls/audio.ts';
import { LIVEKIT_KEY, LIVEKIT_SECRET, startOracleOnLiveKitServer, until } from '../helpers/livekit-server.ts';

const RATE = 48_000;
const rms = (s: Int16Array) => Math.sqrt(s.reduce((a, x) => a + x * x, 0) / Math.max(1, s.length));
/** The share of a frame's energy at one frequency (1 for a pure tone of it, near 0 for noise). */
function toneShare(f: Int16Array, hz: number): number {
  let re = 0;
  let im = 0;
  let all = 0;
  for (let n = 0; n < f.length; n++) {
    re += f[n]! * Math.cos((2 * Math.PI * hz * n) / RATE);
    im -= f[n]! * Math.sin((2 * Math.PI * hz * n) / RATE);
    all += f[n]! * f[n]!;
  }
  return all === 0 ? 0 : (2 * (re * re + im * im)) / (f.length * all);
}
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * A participant of the test: it speaks through an AudioSource and records what it hears, 10 ms frames with their time.
 */
async function participant(url: string, token: string, key: string, o: { mic?: boolean } = {}) {
  const room = new Room();
  await room.connect(url, token, {
    autoSubscribe: true,
    dynacast: false,
    e2ee: { keyProviderOptions: { sharedKey: new TextEncoder().encode(key) } },
  });
  const source = new AudioSource(RATE, 1);
  /** Publishes the microphone (at once unless `mic: false`). */
  const publish = async () => {
    await room.localParticipant!.publishTrack(
      LocalAudioTrack.createAudioTrack('mic', source),
      new TrackPublishOptions({ source: TrackSource.SOURCE_MICROPHONE }),
    );
  };
  if (o.mic !== false) await publish();
  const heard: { at: number; from: string; data: Int16Array }[] = [];
  // the participants whose subscription to the microphone is live (LiveKit's trackSubscribed): audio sent before that
  // never reaches them, so a test speaks only once its listeners are subscribed
  let listeners = 0;
  room.on(RoomEvent.LocalTrackSubscribed, () => listeners++);
  room.on(RoomEvent.TrackSubscribed, (t, _pub, p) => {
    if (t.kind !== TrackKind.KIND_AUDIO) return;
    void (async () => {
      for await (const f of new AudioStream(t, RATE, 1))
        heard.push({ at: Date.now(), from: p.identity, data: f.data.slice() });
    })();
  });
  let speaking = Promise.resolve();
  /** Sends samples in real time (10 ms frames), then silence, so the line never goes quiet. */
  const speak = (samples: Int16Array, silenceMs = 0) => {
    speaking = speaking.then(async () => {
      const all = new Int16Array(samples.length + Math.round((silenceMs / 1000) * RATE));
      all.set(samples);
      for (let at = 0; at < all.length; at += 480) {
        const chunk = all.slice(at, at + 480);
        await source.captureFrame(new AudioFrame(chunk, RATE, 1, chunk.length));
      }
    });
    return speaking;
  };
  /** The frames heard louder than −40 dBFS after `since`. */
  const voiced = (since = 0) => heard.filter((f) => f.at >= since && dbfs(f.data) > -40);
  /** Waits until `n` participants are subscribed to the microphone. */
  const heardBy = (n: number) => until(`${n} subscribed to the microphone`, () => listeners >= n);
  return { room, speak, heard, voiced, heardBy, publish };
}

/** A user's new call in a new session of theirs, the agent brought in and in the room with them. */
async function joinedCall(h: Harness) {
  const u = await h.user();
  const sessionId = await u.newSession();
  const { callId, encryptionKey } = (await u.req('POST', '/calls', { sessionId })).body;
  const sync = await u.req('POST', `/calls/${callId}/sync`, {});
  const me = await participant(sync.body.connection.url, sync.body.connection.token, encryptionKey);
  await until('the agent in the room', () => me.room.remoteParticipants.size === 1);
  await me.heardBy(1);
  return { u, sessionId, callId: callId as string, me };
}

describe('a voice call on the embedded endpoint', () => {
  let h: Harness;
  let speech: SpeechServer;
  /** Whether a model request since the `from`th ends with the user's message `text`. */
  const askedWith = (from: number, text: string) =>
    h.model.requests.slice(from).some((r) => (r.body.messages.at(-1) as { content?: unknown }).content === text);
  beforeAll(async () => {
    speech = await startSpeechServer();
    h = await startHarness({
      // the end of turn passes on the clock (a late frame cannot hold it): 600 ms leaves the pauses below (330 ms)
      // room for the scheduling stalls of a loaded machine
      env: { CALLS_STT_BASE_URL: speech.baseURL, CALLS_TTS_BASE_URL: speech.baseURL, CALLS_END_OF_TURN_MS: '600' },
    });
  });
  afterAll(async () => {
    await h?.close();
    await speech?.close();
  });

  it('hears the user, runs the turn with its tool, speaks the answer back, stops at a barge-in, and keeps the transcript', async () => {
    const u = await h.user();
    const sessionId = await u.newSession();
    const created = await u.req('POST', '/calls', { sessionId, language: 'en' });
    expect(created.status).toBe(201);
    const { callId, encryptionKey, connection } = created.body;
    expect(connection.url).toBe(h.url.replace('http://', 'ws://'));
    const sync = await u.req('POST', `/calls/${callId}/sync`, {});
    expect(sync.status).toBe(200);

    const me = await participant(sync.body.connection.url, sync.body.connection.token, encryptionKey);
    await until('the agent in the room', () => me.room.remoteParticipants.size === 1);
    const agent = [...me.room.remoteParticipants.values()][0]!;
    expect(agent.identity).toBe(h.oracleDid);
    await me.heardBy(1);
    // on the embedded endpoint the agent hears the endpoint's packets of the user's microphone, not a jitter buffer
    await until('the agent hearing the user', () => h.said().includes(`${callId}: the agent hears the user`));
    expect(h.said()).toContain(`${callId}: the agent hears the user, its packets as they arrive (no jitter buffer)`);

    // the user says something (espeak-ng's speech), the model calls a tool and answers in two sentences
    speech.transcripts.push('What is the weather in Nairobi?');
    h.model.enqueue(
      callTool('load_capability', { names: ['weather'] }, 'c1'),
      callTool('get_current_weather', { city: 'Nairobi' }, 'c2'),
      say('It is mild in Nairobi. Take a light jacket.'),
    );
    const said = espeak('What is the weather in Nairobi?', RATE);
    await me.speak(new Int16Array(RATE / 2)); // half a second of silence: the agent's jitter buffer settles
    const t0 = Date.now();
    await me.speak(said.samples, 900);
    await until('two sentences spoken', () => speech.spoken.length === 2);
    await until('the answer heard', () => me.voiced(t0).length >= 100);
    await sleep(500);

    // what the speech-to-text server received (16 kHz, the voice-activity model's rate), once, sent as the silence
    // after the speech reached the early transcription's 200 ms (before the end of turn's 600): the speech, from about
    // 200 ms before it (the pre-roll, less the ~30-100 ms the model takes to start) to that pause, its voiced frames as
    // long and as loud as those said
    expect(speech.heard).toHaveLength(1);
    const heard = speech.heard[0]!;
    expect(heard.language).toBe('en');
    expect(heard.sampleRate).toBe(16_000);
    const seconds = heard.samples.length / heard.sampleRate;
    const sound = (said.soundMs.end - said.soundMs.start) / 1000;
    const detail = JSON.stringify({ seconds, sound, said: voicedIn(said.samples, RATE) });
    expect(seconds - (sound + 0.2), detail).toBeGreaterThan(0.05);
    expect(seconds - (sound + 0.2), detail).toBeLessThan(0.3);
    const got0 = voicedIn(heard.samples, heard.sampleRate);
    const want = voicedIn(said.samples, RATE);
    expect(got0.ms / want.ms, detail).toBeGreaterThan(0.9);
    expect(got0.ms / want.ms, detail).toBeLessThan(1.1);
    expect(got0.rms / want.rms, detail).toBeGreaterThan(0.7);
    expect(got0.rms / want.rms, detail).toBeLessThan(1.3);

    // what the user heard: the two sentences the text-to-speech server sent, as long and as loud
    expect(speech.spoken.map((s) => s.input)).toEqual(['It is mild in Nairobi.', 'Take a light jacket.']);
    const sent = speech.spoken.reduce((n, s) => n + s.samples.length, 0) / 24_000;
    const got = me.voiced(t0);
    expect(got.length * 0.01).toBeGreaterThan(sent * 0.85);
    expect(got.length * 0.01).toBeLessThan(sent * 1.15);
    const gotRms = got.reduce((a, f) => a + rms(f.data), 0) / got.length;
    expect(gotRms / rms(speech.spoken[0]!.samples)).toBeGreaterThan(0.7);
    expect(gotRms / rms(speech.spoken[0]!.samples)).toBeLessThan(1.3);

    // the transcript is the session's history: the human utterance, the answer and its tool call
    const history = (await u.req('GET', `/sessions/${sessionId}/messages`)).body;
    const msgs = history.messages as { type: string; content: unknown }[];
    expect(msgs.filter((m) => typeof m.content === 'string').map((m) => [m.type, m.content])).toEqual([
      ['human', 'What is the weather in Nairobi?'],
      ['ai', 'It is mild in Nairobi. Take a light jacket.'],
    ]);
    expect(JSON.stringify(msgs)).toContain('"get_current_weather"');

    // barge-in: a long answer is interrupted by the user speaking; playback stops and the turn is aborted
    speech.transcripts.push('Tell me a long story.');
    speech.speech.ms = 4000;
    h.model.enqueue({
      steps: [
        { type: 'text', text: 'Once upon a time there was a stove. ' },
        { type: 'delay', ms: 8000 },
        { type: 'text', text: 'The end.' },
      ],
    });
    await me.speak(espeak('Tell me a long story.', RATE).samples, 600);
    await until('the story begins', () => speech.spoken.length === 3);
    const storyAt = Date.now();
    await until('the story heard', () => me.voiced(storyAt).length > 50);
    speech.transcripts.push('Stop.');
    h.model.enqueue(say('Okay.'));
    const bargeAt = Date.now();
    // longer than a second, so that its answer comes after the frames counted below
    const stop = espeak('Stop, please stop talking now.', RATE);
    expect(stop.soundMs.end - stop.soundMs.start).toBeGreaterThan(1000);
    await me.speak(stop.samples, 0);
    await sleep(1000);
    // the story's 4 s stopped within the barge-in's start (64 ms of speech for the model) plus the line's latency
    const afterBarge = me.voiced(bargeAt + 600).filter((f) => f.at < Date.now() - 0);
    const storyFrames = afterBarge.filter((f) => f.at < bargeAt + 1000);
    expect(storyFrames.length).toBeLessThan(30);
    const after = (await u.req('GET', `/sessions/${sessionId}/messages`)).body.messages as { content: unknown }[];
    const story = after.map((m) => m.content).filter((c): c is string => typeof c === 'string' && c.startsWith('Once'));
    expect(story).toHaveLength(1);
    expect(story[0]).not.toContain('The end.');
    await me.room.disconnect();

    // ending the call ends the room
    const ended = await u.req('PATCH', `/calls/${callId}/update`, { callStatus: 'ended' });
    expect(ended.body.call.callStatus).toBe('ended');
  }, 60_000);

  it('transcribes in a pause of the speech, and again when the user goes on: the turn is what was said in full', async () => {
    const { u, sessionId, me } = await joinedCall(h);

    // "What is the weather", 330 ms of silence (past the early transcription's 200, short of the end of turn's 600),
    // "in Nairobi?": the first transcription is of the first words, dropped when the user goes on
    const first = espeak('What is the weather', RATE);
    const rest = espeak('in Nairobi?', RATE);
    const cut = (x: typeof first, from: number, to: number) =>
      x.samples.slice(Math.round((from / 1000) * RATE), Math.round((to / 1000) * RATE));
    const a = cut(first, 0, first.soundMs.end);
    const b = cut(rest, rest.soundMs.start, (rest.samples.length / RATE) * 1000);
    const pause = Math.round(0.33 * RATE);
    const all = new Int16Array(a.length + pause + b.length);
    all.set(a);
    all.set(b, a.length + pause);
    speech.transcripts.push('What is the weather', 'What is the weather in Nairobi?');
    const heard0 = speech.heard.length;
    const requests0 = h.model.requests.length;
    await me.speak(new Int16Array(RATE / 2));
    await me.speak(all, 900);
    await until('the model asked with all of it', () => askedWith(requests0, 'What is the weather in Nairobi?'));

    const heard = speech.heard.slice(heard0);
    expect(heard).toHaveLength(2);
    const [early, whole] = heard.map((x) => voicedIn(x.samples, x.sampleRate).ms);
    const said = { first: voicedIn(a, RATE).ms, all: voicedIn(all, RATE).ms };
    const detail = JSON.stringify({ early, whole, said });
    expect(early! / said.first, detail).toBeGreaterThan(0.85);
    expect(early! / said.first, detail).toBeLessThan(1.15);
    expect(whole! / said.all, detail).toBeGreaterThan(0.85);
    expect(whole! / said.all, detail).toBeLessThan(1.15);
    // the answer is stored as its turn ends, after its speech was fetched
    const texts = async () =>
      ((await u.req('GET', `/sessions/${sessionId}/messages`)).body.messages as { type: string; content: unknown }[])
        .filter((m) => typeof m.content === 'string')
        .map((m) => [m.type, m.content]);
    let stored = await texts();
    for (const end = Date.now() + 10_000; stored.length < 2 && Date.now() < end; stored = await texts())
      await sleep(100);
    expect(stored.map(([type]) => type)).toEqual(['human', 'ai']);
    expect(stored[0]![1]).toBe('What is the weather in Nairobi?');
    await me.room.disconnect();
  }, 60_000);

  it('sends at most three early transcriptions in a turn whose user pauses and goes on four times', async () => {
    const { me } = await joinedCall(h);

    // five words, each followed by 330 ms of silence (past the early transcription's 200, short of the end of turn's
    // 600): the first three pauses send the utterance so far, the fourth does not, and the turn's end sends it whole
    const words = ['One', 'two', 'three', 'four', 'five'].map((w) => {
      const x = espeak(w, RATE);
      return x.samples.slice(Math.round((x.soundMs.start / 1000) * RATE), Math.round((x.soundMs.end / 1000) * RATE));
    });
    const pause = Math.round(0.33 * RATE);
    const all = new Int16Array(words.reduce((n, w) => n + w.length + pause, 0));
    let at = 0;
    for (const w of words) {
      all.set(w, at);
      at += w.length + pause;
    }
    speech.transcripts.push('One', 'One two', 'One two three', 'One two three four five');
    const heard0 = speech.heard.length;
    const requests0 = h.model.requests.length;
    await me.speak(new Int16Array(RATE / 2));
    await me.speak(all, 900);
    await until('the model asked with all of it', () => askedWith(requests0, 'One two three four five'));

    const heard = speech.heard.slice(heard0).map((x) => voicedIn(x.samples, x.sampleRate).ms);
    const said = words.map((w) => voicedIn(w, RATE).ms);
    const upTo = (n: number) => said.slice(0, n).reduce((a, b) => a + b, 0);
    const detail = JSON.stringify({ heard, said });
    expect(heard, detail).toHaveLength(4);
    // each upload's voiced audio is its words' (Opus spreads a word's edges by a few tens of ms; a word is 300 ms)
    [1, 2, 3, 5].forEach((n, i) => expect(Math.abs(heard[i]! - upTo(n)), detail).toBeLessThan(120));
    await me.room.disconnect();
  }, 60_000);

  it("sends the answer's model request on the early transcription, and fetches its first words' speech, before the turn ends", async () => {
    const { me } = await joinedCall(h);
    speech.transcripts.push('What time is it in Nairobi?');
    const asked: number[] = [];
    h.model.enqueue(() => {
      asked.push(Date.now());
      return say('It is noon.');
    });
    const requests0 = h.model.requests.length;
    const heard0 = speech.heard.length;
    const spoken0 = speech.spoken.length;
    await me.speak(new Int16Array(RATE / 2));
    await me.speak(espeak('What time is it in Nairobi?', RATE).samples, 900);
    await until('the answer spoken', () => speech.spoken.slice(spoken0).some((x) => x.input === 'It is noon.'));
    // one transcription (the early one, 200 ms into the silence), and the model asked right after it, not once the
    // turn ended 400 ms later; the answer's speech fetched once, before then too
    const heard = speech.heard.slice(heard0);
    expect(heard).toHaveLength(1);
    expect(h.model.requests.length - requests0).toBe(1);
    expect(asked[0]! - heard[0]!.at).toBeLessThan(250);
    const spoken = speech.spoken.slice(spoken0).filter((x) => x.input === 'It is noon.');
    expect(spoken).toHaveLength(1);
    expect(spoken[0]!.sentAt! - heard[0]!.at).toBeLessThan(250);
    await me.room.disconnect();
  }, 60_000);

  it('fetches the first words again when their speech fetched before the end of turn failed', async () => {
    const { me } = await joinedCall(h);
    speech.transcripts.push('Is it raining?');
    h.model.enqueue(say('Not today.'));
    const spoken0 = speech.spoken.length;
    speech.failSpeech = 1; // the early one
    await me.speak(new Int16Array(RATE / 2));
    await me.speak(espeak('Is it raining?', RATE).samples, 900);
    await until('the answer spoken', () => speech.spoken.slice(spoken0).some((x) => x.input === 'Not today.'));
    expect(speech.failSpeech).toBe(0);
    await me.room.disconnect();
  }, 60_000);

  it("plays a sentence's speech as the service streams it, not once the service has sent all of it", async () => {
    const { u, callId, me } = await joinedCall(h);
    // the service takes 1.5 s to send a sentence of 600 ms, in ten parts
    speech.speech.synthesisMs = 1500;
    try {
      speech.transcripts.push('Say something.');
      h.model.enqueue(say('Something.'));
      const spoken0 = speech.spoken.length;
      await me.speak(new Int16Array(RATE / 2));
      const t0 = Date.now();
      await me.speak(espeak('Say something.', RATE).samples, 900);
      await until('the speech sent whole', () => speech.spoken[spoken0]?.sentAt !== undefined);
      await until('the answer heard', () => me.voiced(t0).length > 0);
      const sent = speech.spoken[spoken0]!.sentAt!;
      const heard = me.voiced(t0)[0]!.at;
      // heard well before the service sent its last part (1.5 s after the request), not after it
      expect(sent - heard, JSON.stringify({ sent, heard })).toBeGreaterThan(500);
      // and as sent: the service's tone, each sample whole though the parts cut samples in two (noise otherwise)
      await sleep(800);
      const shares = me
        .voiced(t0)
        .map((f) => toneShare(f.data, speech.speech.hz))
        .sort((a, b) => a - b);
      expect(shares.length).toBeGreaterThan(40);
      expect(shares[Math.floor(shares.length / 2)]).toBeGreaterThan(0.8);
    } finally {
      speech.speech.synthesisMs = 0;
    }
    await me.room.disconnect();
    await u.req('PATCH', `/calls/${callId}/update`, { callStatus: 'ended' });
  }, 60_000);

  it("is a participant of kind AGENT whose lk.agent.state follows the call, and says the call's greeting", async () => {
    const u = await h.user();
    const sessionId = await u.newSession();
    const created = await u.req('POST', '/calls', { sessionId, greeting: 'Hello, I am listening.' });
    expect(created.status).toBe(201);
    const { callId, encryptionKey } = created.body;
    const sync = await u.req('POST', `/calls/${callId}/sync`, {});
    const me = await participant(sync.body.connection.url, sync.body.connection.token, encryptionKey);
    await until('the agent in the room', () => me.room.remoteParticipants.size === 1);
    const agent = [...me.room.remoteParticipants.values()][0]!;
    expect(agent.kind).toBe(ParticipantKind.AGENT);
    const states: string[] = [];
    const record = () => {
      const s = agent.attributes['lk.agent.state'];
      if (s && states.at(-1) !== s) states.push(s);
    };
    record();
    me.room.on(RoomEvent.ParticipantAttributesChanged, record);
    // the greeting is spoken (the agent speaks, then listens again) and kept as the agent's message
    await until('the greeting spoken', () => states.includes('speaking') && states.at(-1) === 'listening');
    expect(speech.spoken.map((x) => x.input)).toContain('Hello, I am listening.');
    const history = (await u.req('GET', `/sessions/${sessionId}/messages`)).body.messages as { content: unknown }[];
    expect(history.map((m) => m.content)).toContain('Hello, I am listening.');
    // a turn: thinking, speaking, listening
    speech.transcripts.push('Say something.');
    h.model.enqueue(say('Something.'));
    const from = states.length;
    await me.speak(espeak('Say something.', RATE).samples, 900);
    await until('the answer given', () => states.slice(from).join(',').includes('thinking,speaking,listening'));
    await me.room.disconnect();
    await u.req('PATCH', `/calls/${callId}/update`, { callStatus: 'ended' });
  }, 60_000);

  it('says the greeting once the user hears the agent, for a user who joins the room after the agent', async () => {
    const u = await h.user();
    const sessionId = await u.newSession();
    const created = await u.req('POST', '/calls', { sessionId, greeting: 'Welcome.' });
    const { callId, encryptionKey } = created.body;
    speech.speech.ms = 1000;
    const spoken = speech.spoken.length;
    // the sync brings the agent into the room; the user's page joins a while later
    const sync = await u.req('POST', `/calls/${callId}/sync`, {});
    await sleep(1500);
    const me = await participant(sync.body.connection.url, sync.body.connection.token, encryptionKey);
    await until('the greeting spoken', () => speech.spoken.length > spoken);
    expect(speech.spoken.at(-1)!.input).toBe('Welcome.');
    await sleep(1500);
    // the user heard the whole greeting: 1 s of tone, 10 ms frames louder than -40 dBFS
    const heard = me.voiced().filter((f) => f.from === h.oracleDid).length;
    expect(heard, `${heard} loud 10 ms frames of the agent's heard`).toBeGreaterThan(85);
    expect(heard).toBeLessThan(115);
    await me.room.disconnect();
    await u.req('PATCH', `/calls/${callId}/update`, { callStatus: 'ended' });
  }, 60_000);

  it("says listening only once the user's microphone reaches it: a sentence begun as it says so is heard whole", async () => {
    const u = await h.user();
    const sessionId = await u.newSession();
    const { callId, encryptionKey } = (await u.req('POST', '/calls', { sessionId })).body;
    const sync = await u.req('POST', `/calls/${callId}/sync`, {});
    const me = await participant(sync.body.connection.url, sync.body.connection.token, encryptionKey, { mic: false });
    await until('the agent in the room', () => me.room.remoteParticipants.size === 1);
    const agent = [...me.room.remoteParticipants.values()][0]!;
    // in the room, but nothing to hear yet
    await sleep(1000);
    expect(agent.attributes['lk.agent.state']).toBe('initializing');
    await me.publish();
    await until('the agent listening', () => agent.attributes['lk.agent.state'] === 'listening');
    // the user speaks as the page tells them the agent listens: no silence first
    speech.transcripts.push('What is the weather in Nairobi?');
    h.model.enqueue(say('Mild.'));
    const heard0 = speech.heard.length;
    const said = espeak('What is the weather in Nairobi?', RATE);
    await me.speak(said.samples, 900);
    await until('the utterance transcribed', () => speech.heard.length === heard0 + 1);
    const heard = speech.heard[heard0]!;
    const got = voicedIn(heard.samples, heard.sampleRate);
    const want = voicedIn(said.samples, RATE);
    expect(got.ms / want.ms, JSON.stringify({ got, want })).toBeGreaterThan(0.9);
    await me.room.disconnect();
    await u.req('PATCH', `/calls/${callId}/update`, { callStatus: 'ended' });
  }, 60_000);

  it("refuses a user whose frames the call's key does not decrypt: e2ee_key_mismatch in its log, nothing transcribed", async () => {
    const u = await h.user();
    const sessionId = await u.newSession();
    const { callId, encryptionKey } = (await u.req('POST', '/calls', { sessionId })).body;
    const sync = await u.req('POST', `/calls/${callId}/sync`, {});
    const wrongKey = encryptionKey.replace(/^./, (c: string) => (c === '0' ? '1' : '0'));
    const me = await participant(sync.body.connection.url, sync.body.connection.token, wrongKey);
    await until('the agent in the room', () => me.room.remoteParticipants.size === 1);
    const transcribed = speech.heard.length;
    const line = `${callId}: e2ee_key_mismatch: the media of ${u.did} cannot be decrypted with the call's key`;
    // the user speaks until the agent has had enough undecryptable frames (its subscription may take a while)
    const words = espeak('Can you hear me?', RATE);
    const end = Date.now() + 30_000;
    while (!h.said().includes(line)) {
      if (Date.now() > end) throw new Error(`no refusal logged:\n${h.said()}`);
      await me.speak(words.samples, 500);
    }
    await me.speak(words.samples, 900);
    await sleep(500);
    expect(speech.heard).toHaveLength(transcribed);
    await me.room.disconnect();
    await u.req('PATCH', `/calls/${callId}/update`, { callStatus: 'ended' });
  }, 90_000);
});

describe("a call's connections to its services", () => {
  let h: Harness;
  let speech: SpeechServer;
  let modelRelay: Relay;
  let speechRelay: Relay;
  beforeAll(async () => {
    speech = await startSpeechServer();
    speechRelay = await startRelay({ target: targetOf(speech.baseURL) });
    modelRelay = await startRelay();
    h = await startHarness({
      env: {
        CALLS_STT_BASE_URL: speechRelay.url,
        CALLS_TTS_BASE_URL: speechRelay.url,
        CALLS_END_OF_TURN_MS: '600',
        LLM_BASE_URL: `${modelRelay.url}/v1`,
      },
    });
    modelRelay.target = targetOf(h.model.url);
  });
  afterAll(async () => {
    await h?.close();
    await modelRelay?.close();
    await speechRelay?.close();
    await speech?.close();
  });

  it('are opened while the user speaks: a turn after the services closed their idle connections waits for none', async () => {
    const { u, callId, me } = await joinedCall(h);
    // the agent's states as the user sees them: each turn's answer is given once they go thinking, speaking, listening
    const agent = [...me.room.remoteParticipants.values()][0]!;
    const states: string[] = [];
    const record = () => {
      const s = agent.attributes['lk.agent.state'];
      if (s && states.at(-1) !== s) states.push(s);
    };
    record();
    me.room.on(RoomEvent.ParticipantAttributesChanged, record);
    await me.speak(new Int16Array(RATE / 2));
    await sleep(2000); // past the 2 s in which the connections opened as the call began are not opened again
    const said = espeak('What time is it in Nairobi?', RATE);
    for (const turn of [0, 1]) {
      // between the turns every service closes the connections it holds (as one does after 5 s idle)
      modelRelay.dropAll();
      speechRelay.dropAll();
      await sleep(200);
      speech.transcripts.push('What time is it in Nairobi?');
      h.model.enqueue(say('It is noon in Nairobi.'));
      const from = states.length;
      const start = Date.now();
      await me.speak(said.samples, 900);
      const speechEnd = start + (said.soundMs.end / 1000) * 1000;
      // the answer given whole: its first words' speech may be fetched before the end of turn, so a speech request
      // does not tell that the turn is over, and the next turn's dropped connections must not cut a request of this one
      await until('the answer given', () => states.slice(from).join(',').includes('thinking,speaking,listening'));
      // each request of the turn came on a connection opened before the user stopped speaking, by an OPTIONS request
      // sent as their speech began
      for (const [relay, method, path] of [
        [speechRelay, 'POST', '/audio/transcriptions'],
        [modelRelay, 'POST', '/chat/completions'],
        [speechRelay, 'POST', '/audio/speech'],
      ] as const) {
        const used = connectionOf(relay, method, path, start);
        const detail = JSON.stringify({ turn, path, start, speechEnd, used, all: relay.connections });
        expect(used, detail).toBeDefined();
        expect(used!.connection.openedAt, detail).toBeGreaterThanOrEqual(start);
        expect(used!.connection.openedAt, detail).toBeLessThan(speechEnd);
        expect(used!.connection.requests[0]!.method, detail).toBe('OPTIONS');
      }
    }
    await me.room.disconnect();
    await u.req('PATCH', `/calls/${callId}/update`, { callStatus: 'ended' });
  }, 60_000);
});

describe('the same agent on a separate LiveKit-protocol server (LIVEKIT_URL)', () => {
  let h: Harness;
  let speech: SpeechServer;
  let oracle: Awaited<ReturnType<typeof startOracleOnLiveKitServer>>;
  let server: typeof oracle.server;
  const forwarded: { from: string; payload: Buffer; timestamp: number }[] = [];
  beforeAll(async () => {
    speech = await startSpeechServer();
    oracle = await startOracleOnLiveKitServer(speech, (from, track, packet) => {
      if (track.kind === 'audio')
        forwarded.push({ from, payload: Buffer.from(packet.payload), timestamp: packet.header.timestamp });
    });
    ({ h, server } = oracle);
  });
  afterAll(async () => {
    await oracle?.close();
    await speech?.close();
  });

  it('works unchanged; a wrong key hears noise, never the speech; no forwarded audio is clear Opus', async () => {
    const u = await h.user();
    const sessionId = await u.newSession();
    const { callId, encryptionKey, connection } = (await u.req('POST', '/calls', { sessionId })).body;
    expect(connection.url).toBe(server.url);
    // the oracle's own path is not served: the server is elsewhere
    expect((await fetch(`${h.url}/rtc/validate`)).status).toBe(404);
    expect((await u.req('POST', `/calls/${callId}/sync`, {})).status).toBe(200);
    const me = await participant(connection.url, connection.token, encryptionKey);
    // an observer with the wrong key (admitted by a token of the server's: the key is the only secret left)
    const at = new AccessToken(LIVEKIT_KEY, LIVEKIT_SECRET, { identity: 'observer' });
    at.addGrant({ roomJoin: true, room: callId, canSubscribe: true, canPublish: true });
    const wrongKey = encryptionKey.replace(/^./, (c: string) => (c === '0' ? '1' : '0'));
    const observer = await participant(server.url, await at.toJwt(), wrongKey);
    await until('everyone in the room', () => me.room.remoteParticipants.size === 2);
    await me.heardBy(2);

    speech.transcripts.push('Hello there.');
    h.model.enqueue(say('Hello. I am the oracle.'));
    await me.speak(new Int16Array(RATE / 2));
    const t0 = Date.now();
    await me.speak(espeak('Hello there.', RATE).samples, 800);
    await until('the answer spoken', () => speech.spoken.length === 2);
    await until('the answer heard', () => me.voiced(t0).length >= 80);
    await sleep(300);
    expect(speech.heard).toHaveLength(1);
    // on a LiveKit server the agent hears the user as a LiveKit participant does, through rtc-node's jitter buffer
    expect(h.said()).toContain(`${callId}: the agent hears the user`);
    expect(h.said()).not.toContain('its packets as they arrive');
    // the observer received the user's and the agent's audio as frames it could not decrypt: silence
    expect(observer.heard.length).toBeGreaterThan(100);
    // what the observer decodes is noise (the frame cryptor cannot decrypt; Opus decodes the cipher text), never the
    // tones
    const tonal = (f: Int16Array) => Math.max(toneShare(f, 440), toneShare(f, 300));
    // a heard tone: 1.00 (the frames its jitter buffer stretched or shortened under load are not pure: half at least)
    const heardTone = me.voiced(t0).filter((f) => tonal(f.data) > 0.9).length;
    expect(heardTone, `${heardTone} of ${me.voiced(t0).length}`).toBeGreaterThan(40);
    // its noise scores at most 0.5 a frame; on a loaded machine one odd frame of it has scored above 0.9, while the tones
    // decrypted would give tens
    const observerTone = observer.voiced(t0).filter((f) => tonal(f.data) > 0.9).length;
    expect(observerTone, `${observerTone} of ${observer.voiced(t0).length}`).toBeLessThan(3);
    expect(me.voiced(t0).length).toBeGreaterThan(80);

    // every audio payload the server forwarded ends with LiveKit's GCM frame trailer (12-byte IV length, key index 0)
    const fromUser = forwarded.filter((f) => f.from === u.did);
    const fromAgent = forwarded.filter((f) => f.from === h.oracleDid);
    expect(fromUser.length).toBeGreaterThan(50);
    expect(fromAgent.length).toBeGreaterThan(50);
    for (const f of [...fromUser, ...fromAgent]) expect(f.payload.subarray(-2).toString('hex')).toBe('0c00');
    // the user sends 10 ms Opus frames and the agent 20 ms ones, as the endpoint's answers ask by default (a=ptime:10
    // and a=ptime:20): the RTP clock (48 kHz) steps by 480 and by 960 from one packet to the next
    const steps = (fs: { timestamp: number }[]) => fs.slice(1).map((f, i) => (f.timestamp - fs[i]!.timestamp) >>> 0);
    for (const [fs, step] of [
      [fromUser, 480],
      [fromAgent, 960],
    ] as const) {
      const s = steps(fs);
      expect(s.filter((x) => x === step).length / s.length, `steps of ${step}`).toBeGreaterThan(0.9);
    }
    await observer.room.disconnect();
    await me.room.disconnect();
    expect((await u.req('PATCH', `/calls/${callId}/update`, { callStatus: 'ended' })).body.call.callStatus).toBe(
      'ended',
    );
  }, 60_000);
});
