/**
 * Which Opus packets the agent gives its decoder (src/calls/user-audio.ts, `wellFormedOpus`): those libopus decodes
 * (an empty one aside: a lost packet to both), and none it refuses, since it writes a line to stderr for each one it
 * refuses. Checked against libopus itself (the opus-decoder package the agent decodes with) on packets of every framing
 * code, lengths and padding drawn at random.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { OpusDecoder } from 'opus-decoder';
import { wellFormedOpus } from '../../../../../src/calls/user-audio.ts';

/** A small deterministic generator (mulberry32): the same packets on every run. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A packet near the edges of the rules: any TOC, for code 3 a count byte, then bytes of a length around the limits. */
function packet(r: () => number): Uint8Array {
  const int = (n: number) => Math.floor(r() * n);
  const lengths = [0, 1, 2, 3, 4, 5, 20, 60, 251, 252, 253, 1275, 1276, 1277, 2550, 2551, 2553];
  const length = r() < 0.5 ? lengths[int(lengths.length)]! + int(3) : int(2600);
  const p = new Uint8Array(length);
  for (let i = 0; i < length; i++) p[i] = int(256);
  if (length > 1 && (p[0]! & 3) === 3 && r() < 0.7) p[1] = (p[1]! & 0xc0) | int(8); // a frame count that may fit
  if (length > 2 && r() < 0.2) p[2] = 255; // padding or a length that runs on
  return p;
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('wellFormedOpus', () => {
  it('passes the packets libopus decodes and none it refuses, so the decoder never writes a refusal to stderr', async () => {
    const decoder = new OpusDecoder({ sampleRate: 16_000, channels: 1 });
    await decoder.ready;
    const refusals = vi.spyOn(console, 'error').mockImplementation(() => {});
    const r = random(43);
    let wellFormed = 0;
    const disagreements: string[] = [];
    for (let i = 0; i < 20_000; i++) {
      const p = packet(r);
      const ours = wellFormedOpus(p);
      const before = refusals.mock.calls.length;
      const decoded = decoder.decodeFrame(p);
      const refused = decoded.errors.length > 0 || refusals.mock.calls.length > before;
      if (ours) wellFormed++;
      // an empty packet is a lost one to libopus (concealed): the agent takes it as lost too, its time silence
      if (ours === refused && p.length > 0 && disagreements.length < 5)
        disagreements.push(`${ours ? 'passed' : 'refused'} [${[...p.subarray(0, 4)].join(',')}…] of ${p.length} bytes`);
    }
    decoder.free();
    expect(disagreements).toEqual([]);
    // not a check that passes by refusing everything: thousands of the packets drawn are well formed
    expect(wellFormed).toBeGreaterThan(2000);
    expect(wellFormed).toBeLessThan(18_000);
  });

  it('refuses the packets RFC 6716 names as malformed', () => {
    const bytes = (...b: number[]) => new Uint8Array(b);
    expect(wellFormedOpus(bytes())).toBe(false); // R1: empty
    expect(wellFormedOpus(new Uint8Array(1277))).toBe(false); // R2: one frame of 1276 bytes
    expect(wellFormedOpus(bytes(0x01, 1, 2, 3))).toBe(false); // R3: code 1, an odd length
    expect(wellFormedOpus(bytes(0x02, 252))).toBe(false); // R4: code 2, the length's second byte missing
    expect(wellFormedOpus(bytes(0x02, 5, 1, 2))).toBe(false); // R4: code 2, a first frame longer than the packet
    expect(wellFormedOpus(bytes(0x03, 0))).toBe(false); // R5: code 3, no frames
    expect(wellFormedOpus(bytes(0x1b, 3))).toBe(false); // R5: code 3, three 60 ms SILK frames (180 ms)
    expect(wellFormedOpus(bytes(0xfb, 2, 1, 2, 3))).toBe(false); // R7: code 3 CBR, 3 bytes in 2 frames
    expect(wellFormedOpus(bytes(0xfb, 0x42, 9, 1, 2))).toBe(false); // R6/R7: more padding than bytes
    // and passes well-formed ones: a 20 ms CELT frame, two equal frames, a coded first length, padded CBR frames
    expect(wellFormedOpus(bytes(0xf8, 1, 2, 3))).toBe(true);
    expect(wellFormedOpus(bytes(0xf9, 1, 2, 3, 4))).toBe(true);
    expect(wellFormedOpus(bytes(0xfa, 1, 9, 8, 7))).toBe(true);
    expect(wellFormedOpus(bytes(0xfb, 0x42, 1, 1, 2, 0))).toBe(true);
  });
});
