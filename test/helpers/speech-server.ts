/**
 * A scripted OpenAI-compatible speech server on loopback, as the chat model
 * is: POST /audio/transcriptions answers the next scripted transcript and
 * keeps the audio it was sent (decoded from the WAV); POST /audio/speech
 * answers 24 kHz 16-bit PCM — a tone of the scripted length — and keeps what
 * it sent, so a test compares both ends.
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Heard {
  model: string;
  language: string | null;
  sampleRate: number;
  samples: Int16Array;
  /** When its transcript was sent (Date.now()). */
  at: number;
}

export interface Spoken {
  model: string;
  voice: string;
  input: string;
  samples: Int16Array;
  /** When the reply's last byte was sent (Date.now()). */
  sentAt?: number;
}

export interface SpeechServer {
  baseURL: string;
  heard: Heard[];
  spoken: Spoken[];
  /** The transcripts of the next utterances, in order (default: "hello"). */
  transcripts: string[];
  /**
   * How long each spoken sentence lasts (ms; default 600) and its amplitude (default 10000); `synthesisMs` (default
   * 0: at once) is how long the service takes to synthesize it, sending it in ten parts as it goes, the first after a
   * tenth of that time (as a streaming service does).
   */
  speech: { ms: number; amplitude: number; hz: number; synthesisMs?: number };
  /** The next this many speech requests are answered 503 (and not counted in `spoken`). */
  failSpeech: number;
  close(): Promise<void>;
}

async function body(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

/** The samples of a mono 16-bit PCM WAV (the data chunk after the 44-byte header). */
export function readWav(b: Uint8Array): { sampleRate: number; samples: Int16Array } {
  const v = new DataView(b.buffer, b.byteOffset, b.byteLength);
  const sampleRate = v.getUint32(24, true);
  const n = v.getUint32(40, true) / 2;
  const samples = new Int16Array(n);
  for (let i = 0; i < n; i++) samples[i] = v.getInt16(44 + i * 2, true);
  return { sampleRate, samples };
}

export function tone(ms: number, rate: number, hz: number, amplitude: number): Int16Array {
  const n = Math.round((ms / 1000) * rate);
  const out = new Int16Array(n);
  for (let i = 0; i < n; i++) out[i] = Math.round(amplitude * Math.sin((2 * Math.PI * hz * i) / rate));
  return out;
}

export async function startSpeechServer(): Promise<SpeechServer> {
  const s: SpeechServer = {
    baseURL: '',
    heard: [],
    spoken: [],
    transcripts: [],
    speech: { ms: 600, amplitude: 10_000, hz: 300 },
    failSpeech: 0,
    close: async () => {},
  };
  const server = createServer((req, res) => {
    void (async () => {
      const raw = await body(req);
      if (req.method === 'POST' && req.url === '/audio/transcriptions') {
        const form = await new Request('http://x', {
          method: 'POST',
          headers: { 'content-type': req.headers['content-type'] ?? '' },
          body: new Uint8Array(raw),
        }).formData();
        const file = form.get('file') as File;
        const w = readWav(new Uint8Array(await file.arrayBuffer()));
        s.heard.push({
          model: String(form.get('model')),
          language: form.get('language') === null ? null : String(form.get('language')),
          ...w,
          at: Date.now(),
        });
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ text: s.transcripts.shift() ?? 'hello' }));
        return;
      }
      if (req.method === 'POST' && req.url === '/audio/speech') {
        const b = JSON.parse(raw.toString('utf8')) as { model: string; voice: string; input: string };
        if (s.failSpeech > 0) {
          s.failSpeech--;
          res.statusCode = 503;
          return void res.end('{"error":{"message":"overloaded"}}');
        }
        const samples = tone(s.speech.ms, 24_000, s.speech.hz, s.speech.amplitude);
        const spoken: Spoken = { model: b.model, voice: b.voice, input: b.input, samples };
        s.spoken.push(spoken);
        res.setHeader('content-type', 'audio/pcm');
        const bytes = Buffer.from(samples.buffer);
        const synthesisMs = s.speech.synthesisMs ?? 0;
        if (synthesisMs <= 0) return void res.end(bytes, () => (spoken.sentAt = Date.now()));
        // ten parts of an odd number of bytes: a sample straddles two parts, as a real service's chunks may cut one
        const part = Math.ceil(bytes.length / 20) * 2 + 1;
        for (let at = 0; at < bytes.length && !res.destroyed; at += part) {
          await new Promise((r) => setTimeout(r, synthesisMs / 10));
          res.write(bytes.subarray(at, at + part));
        }
        res.end(() => (spoken.sentAt = Date.now()));
        return;
      }
      res.statusCode = 404;
      res.end();
    })().catch((e: unknown) => {
      res.statusCode = 500;
      res.end(String(e));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  s.baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  s.close = () => new Promise<void>((r) => server.close(() => r()));
  return s;
}
