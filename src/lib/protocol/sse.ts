/**
 * Server-Sent Events frames (protocol.md, "SSE stream"): the encoder the
 * runtime writes them with (`encodeFrame`, `HEARTBEAT_FRAME`), and the
 * streaming parser that reads them back (WHATWG "event stream interpretation"),
 * for bytes arriving in arbitrary chunks: CRLF, CR or LF line ends (a CR at the
 * end of one chunk and the LF at the start of the next count once), UTF-8
 * sequences split across chunks, multi-line `data:`, comments, `retry:`, an
 * optional BOM. It knows nothing of the oracle protocol; `OracleEventParser`
 * below turns raw frames into typed, validated AnyEvents and ignores unknown
 * event names.
 *
 * The one SSE encoder and parser of the package: the runtime writes streams
 * with it; the client SDK, the CLI and the tests read them with it. No node:
 * imports: it runs in browsers too.
 */
import { AnyEventSchema, SSE_EVENT_NAMES, type AnyEvent } from './events.ts';

/** A comment frame that keeps an idle stream open. */
export const HEARTBEAT_FRAME = ': heartbeat\n\n';

/** `id: <n>\nevent: <name>\ndata: <json>\n\n` — data is one line (JSON has no raw newlines). */
export function encodeFrame(e: AnyEvent): string {
  return `id: ${e.id}\nevent: ${e.event}\ndata: ${JSON.stringify(e.data)}\n\n`;
}

export interface RawSseFrame {
  /** The `id:` field of the frame, or the last id seen (SSE semantics). */
  id: string | undefined;
  /** `event:` or 'message' when absent. */
  event: string;
  data: string;
}

export class SseFrameParser {
  private readonly decoder = new TextDecoder('utf-8');
  private buf = '';
  private lastCharWasCR = false;
  private bomChecked = false;
  private data: string[] = [];
  private hasData = false;
  private event = '';
  private lastId: string | undefined;
  /** The reconnection time the server asked for (`retry:`), ms. */
  retry: number | undefined;

  /** Feeds bytes (or already decoded text); returns the frames completed by them. */
  push(chunk: Uint8Array | string): RawSseFrame[] {
    const text = typeof chunk === 'string' ? chunk : this.decoder.decode(chunk, { stream: true });
    return this.feed(text);
  }

  /** Ends the stream: flushes a trailing partial UTF-8 sequence. An unterminated frame is dropped (per spec). */
  end(): RawSseFrame[] {
    const rest = this.decoder.decode();
    return rest ? this.feed(rest) : [];
  }

  private feed(text: string): RawSseFrame[] {
    if (text === '') return []; // keep a pending CR for the next chunk's LF
    if (!this.bomChecked && text.length > 0) {
      this.bomChecked = true;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    const out: RawSseFrame[] = [];
    let start = 0;
    let i = 0;
    if (this.lastCharWasCR && text[0] === '\n') {
      start = i = 1;
    }
    this.lastCharWasCR = false;
    for (; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c !== 10 && c !== 13) continue;
      const line = this.buf + text.slice(start, i);
      this.buf = '';
      this.line(line, out);
      if (c === 13) {
        if (i + 1 < text.length) {
          if (text.charCodeAt(i + 1) === 10) i++;
        } else {
          this.lastCharWasCR = true;
        }
      }
      start = i + 1;
    }
    this.buf += text.slice(start);
    return out;
  }

  private line(line: string, out: RawSseFrame[]): void {
    if (line === '') {
      if (this.hasData) out.push({ id: this.lastId, event: this.event || 'message', data: this.data.join('\n') });
      this.data = [];
      this.hasData = false;
      this.event = '';
      return;
    }
    if (line.charCodeAt(0) === 58 /* : */) return; // comment (heartbeat)
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.charCodeAt(0) === 32) value = value.slice(1);
    switch (field) {
      case 'data':
        this.data.push(value);
        this.hasData = true;
        break;
      case 'event':
        this.event = value;
        break;
      case 'id':
        if (!value.includes('\0')) this.lastId = value;
        break;
      case 'retry':
        if (/^\d+$/.test(value)) this.retry = Number(value);
        break;
      default:
        break; // unknown fields are ignored
    }
  }
}

const KNOWN = new Set<string>(SSE_EVENT_NAMES);

export interface OracleEventParserOptions {
  /** Called for frames that are not protocol events (unknown name, bad JSON, schema mismatch). Default: ignored. */
  onIgnored?: (frame: RawSseFrame, reason: string) => void;
}

/** Raw SSE frames → validated protocol events (AnyEvent). Unknown or invalid frames are skipped. */
export class OracleEventParser {
  private readonly frames = new SseFrameParser();
  private readonly opts: OracleEventParserOptions;
  constructor(opts: OracleEventParserOptions = {}) {
    this.opts = opts;
  }

  push(chunk: Uint8Array | string): AnyEvent[] {
    return this.convert(this.frames.push(chunk));
  }

  end(): AnyEvent[] {
    return this.convert(this.frames.end());
  }

  private convert(frames: RawSseFrame[]): AnyEvent[] {
    const out: AnyEvent[] = [];
    for (const f of frames) {
      if (!KNOWN.has(f.event)) {
        this.opts.onIgnored?.(f, 'unknown event');
        continue;
      }
      let data: unknown;
      try {
        data = JSON.parse(f.data);
      } catch {
        this.opts.onIgnored?.(f, 'data is not JSON');
        continue;
      }
      const id = f.id !== undefined && /^\d+$/.test(f.id) ? Number(f.id) : 0;
      const r = AnyEventSchema.safeParse({ id, event: f.event, data });
      if (!r.success) {
        this.opts.onIgnored?.(f, 'data does not match the protocol schema');
        continue;
      }
      out.push(r.data);
    }
    return out;
  }
}
