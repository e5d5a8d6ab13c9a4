import { describe, expect, it } from 'vitest';
import { encodePng } from '../../../../src/calls/image/png.ts';
import { fitWithin, scaleRgbaToRgb } from '../../../../src/calls/image/scale.ts';
import { decodePng } from '../../../helpers/png.ts';

describe('encodePng', () => {
  it('writes a PNG that an independent decoder reads back pixel for pixel, CRCs checked', () => {
    const w = 7;
    const h = 5;
    const rgb = new Uint8Array(w * h * 3).map((_, i) => (i * 37) % 256);
    const png = encodePng(rgb, w, h);
    const back = decodePng(png);
    expect([back.width, back.height]).toEqual([w, h]);
    expect(Buffer.from(back.rgb).equals(Buffer.from(rgb))).toBe(true);
  });

  it('refuses a size that does not match the pixels, naming both', () => {
    expect(() => encodePng(new Uint8Array(10), 2, 2)).toThrow('2×2 RGB pixels are 12 bytes, not 10');
    expect(() => encodePng(new Uint8Array(0), 0, 2)).toThrow('positive integer size, not 0×2');
  });
});

describe('scaling a frame down', () => {
  it('fits the longer side within the bound, keeps the aspect, never scales up', () => {
    expect(fitWithin(1280, 720, 768)).toEqual({ width: 768, height: 432 });
    expect(fitWithin(720, 1280, 768)).toEqual({ width: 432, height: 768 });
    expect(fitWithin(640, 480, 768)).toEqual({ width: 640, height: 480 });
    expect(fitWithin(5000, 1, 768)).toEqual({ width: 768, height: 1 });
  });

  it('averages the source pixels each output pixel covers, and drops alpha', () => {
    // 4×2 RGBA: columns 0-1 black and white (mean grey), columns 2-3 red
    const rgba = new Uint8Array([
      ...[0, 0, 0, 255, 255, 255, 255, 255, 200, 0, 0, 255, 200, 0, 0, 255],
      ...[0, 0, 0, 255, 255, 255, 255, 255, 200, 0, 0, 255, 200, 0, 0, 255],
    ]);
    const out = scaleRgbaToRgb(rgba, 4, 2, 2);
    expect([out.width, out.height]).toEqual([2, 1]);
    expect([...out.rgb]).toEqual([128, 128, 128, 200, 0, 0]);
  });

  it('keeps a frame that fits as it is, RGB', () => {
    const rgba = new Uint8Array([1, 2, 3, 9, 4, 5, 6, 9]);
    expect([...scaleRgbaToRgb(rgba, 2, 1, 768).rgb]).toEqual([1, 2, 3, 4, 5, 6]);
  });
});
