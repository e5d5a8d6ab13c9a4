import { describe, expect, it } from 'vitest';
import { OracleEventParser, SseFrameParser, type RawSseFrame } from '../../../../src/lib/protocol/sse.ts';
import { encodeFrame, type AnyEvent } from '../../../../src/lib/protocol/index.ts';

const enc = new TextEncoder();

function framesOf(chunks: (Uint8Array | string)[]): RawSseFrame[] {
  const p = new SseFrameParser();
  const out: RawSseFrame[] = [];
  for (const c of chunks) out.push(...p.push(c));
  out.push(...p.end());
  return out;
}

/** Every way to cut `bytes` in two, plus byte-at-a-time. */
function chunkings(bytes: Uint8Array): Uint8Array[][] {
  const all: Uint8Array[][] = [[bytes]];
  for (let i = 1; i < bytes.length; i++) all.push([bytes.slice(0, i), bytes.slice(i)]);
  all.push(Array.from(bytes, (b) => Uint8Array.of(b)));
  // three-way cuts around every position, step 7 to stay fast
  for (let i = 1; i < bytes.length; i += 7)
    for (let j = i + 1; j < bytes.length; j += 11) all.push([bytes.slice(0, i), bytes.slice(i, j), bytes.slice(j)]);
  return all;
}

const events: AnyEvent[] = [
  { id: 1, event: 'run', data: { runId: 'r1', requestId: 'q1' } },
  { id: 2, event: 'message', data: { content: 'Héllo 🌍 — ünïcödé ✓ 日本語' } },
  {
    id: 3,
    event: 'tool_call',
    data: {
      sessionId: 's',
      requestId: 'q1',
      eventId: 'e1',
      toolName: 'get_current_weather',
      args: { city: 'Zürich' },
      status: 'isRunning',
    },
  },
  { id: 4, event: 'message', data: { content: 'line1\nline2\r\nline3' } },
  { id: 5, event: 'done', data: { status: 'finished' } },
];

describe('SseFrameParser', () => {
  const wire = ': heartbeat\n\n' + events.map(encodeFrame).join('') + ': heartbeat\n\n';
  const bytes = enc.encode(wire);

  it('yields the same frames for every chunking (every split point, byte-at-a-time, split UTF-8)', () => {
    const expected = framesOf([bytes]);
    expect(expected).toHaveLength(events.length);
    for (const c of chunkings(bytes)) expect(framesOf(c)).toEqual(expected);
  });

  it('handles CRLF and lone CR line ends, also when CR and LF land in different chunks', () => {
    for (const eol of ['\r\n', '\r']) {
      const crlf = enc.encode(wire.replace(/\n/g, eol));
      const expected = framesOf([bytes]);
      for (const c of chunkings(crlf)) expect(framesOf(c)).toEqual(expected);
    }
  });

  it('an empty chunk between CR and LF does not end the frame early', () => {
    expect(framesOf(['data: a\r', '', new Uint8Array(0), '\ndata: b\r\n\r\n'])).toEqual([
      { id: undefined, event: 'message', data: 'a\nb' },
    ]);
  });

  it('joins multi-line data with \\n, keeps the last id, defaults the event name to message', () => {
    const f = framesOf(['id: 7\ndata: a\ndata:b\ndata:  c\n\n', 'data: x\n\n']);
    expect(f).toEqual([
      { id: '7', event: 'message', data: 'a\nb\n c' },
      { id: '7', event: 'message', data: 'x' },
    ]);
  });

  it('skips comments, unknown fields, frames without data; reads retry; strips a BOM', () => {
    const p = new SseFrameParser();
    const f = p.push('\uFEFF: hi\nfoo: bar\nretry: 1500\nevent: x\n\nevent: y\ndata\n\n');
    expect(f).toEqual([{ id: undefined, event: 'y', data: '' }]);
    expect(p.retry).toBe(1500);
  });

  it('drops an unterminated frame at end of stream', () => {
    expect(framesOf(['event: message\ndata: {"content":"x"}\n'])).toEqual([]);
  });
});

describe('OracleEventParser', () => {
  it('validates protocol events, ignores unknown events and bad frames, for every chunking', () => {
    const wire =
      encodeFrame(events[0]!) +
      'id: 2\nevent: future_event\ndata: {"x":1}\n\n' +
      'id: 3\nevent: message\ndata: {not json\n\n' +
      'id: 4\nevent: message\ndata: {"wrong":1}\n\n' +
      encodeFrame({ ...events[1]!, id: 5 } as AnyEvent) +
      encodeFrame({ ...events[4]!, id: 6 } as AnyEvent);
    const bytes = enc.encode(wire);
    const ignored: string[] = [];
    const ref = new OracleEventParser({ onIgnored: (_f, why) => ignored.push(why) }).push(bytes);
    expect(ref.map((e) => [e.id, e.event])).toEqual([
      [1, 'run'],
      [5, 'message'],
      [6, 'done'],
    ]);
    expect(ignored).toEqual(['unknown event', 'data is not JSON', 'data does not match the protocol schema']);
    for (const c of chunkings(bytes)) {
      const p = new OracleEventParser();
      const got: AnyEvent[] = [];
      for (const x of c) got.push(...p.push(x));
      got.push(...p.end());
      expect(got).toEqual(ref);
    }
  });
});
