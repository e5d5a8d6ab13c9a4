/**
 * A PNG decoder for the tests (8-bit truecolour, with or without alpha, not interlaced; every filter type), written
 * from the PNG specification apart from the encoder it checks: the chunks' CRCs are verified, the rows unfiltered.
 */
import { crc32, inflateSync } from 'node:zlib';

interface DecodedPng {
  width: number;
  height: number;
  /** RGB, 3 bytes a pixel, rows top to bottom. */
  rgb: Uint8Array;
}

export function decodePng(png: Buffer): DecodedPng {
  if (png.subarray(0, 8).toString('hex') !== '89504e470d0a1a0a') throw new Error('not a PNG: bad signature');
  let width = 0;
  let height = 0;
  let channels = 0;
  const idat: Buffer[] = [];
  for (let at = 8; at < png.length;) {
    const len = png.readUInt32BE(at);
    const type = png.subarray(at + 4, at + 8).toString('ascii');
    const data = png.subarray(at + 8, at + 8 + len);
    if (png.readUInt32BE(at + 8 + len) !== crc32(png.subarray(at + 4, at + 8 + len)))
      throw new Error(`bad CRC: ${type}`);
    if (type === 'IHDR') {
      width = data.readUInt32BE(0);
      height = data.readUInt32BE(4);
      if (data[8] !== 8 || (data[9] !== 2 && data[9] !== 6) || data[12] !== 0)
        throw new Error(`unsupported PNG: depth ${data[8]}, colour type ${data[9]}, interlace ${data[12]}`);
      channels = data[9] === 2 ? 3 : 4;
    } else if (type === 'IDAT') idat.push(data);
    at += 12 + len;
  }
  const raw = inflateSync(Buffer.concat(idat));
  const stride = width * channels;
  const px = new Uint8Array(stride * height);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)]!;
    for (let x = 0; x < stride; x++) {
      const v = raw[y * (stride + 1) + 1 + x]!;
      const a = x >= channels ? px[y * stride + x - channels]! : 0;
      const b = y > 0 ? px[(y - 1) * stride + x]! : 0;
      const c = x >= channels && y > 0 ? px[(y - 1) * stride + x - channels]! : 0;
      const p = a + b - c;
      const paeth =
        Math.abs(p - a) <= Math.abs(p - b) && Math.abs(p - a) <= Math.abs(p - c)
          ? a
          : Math.abs(p - b) <= Math.abs(p - c)
            ? b
            : c;
      const pred = [0, a, b, (a + b) >> 1, paeth][filter];
      if (pred === undefined) throw new Error(`bad filter type ${filter} on row ${y}`);
      px[y * stride + x] = (v + pred) & 0xff;
    }
  }
  if (channels === 3) return { width, height, rgb: px };
  const rgb = new Uint8Array(width * height * 3);
  for (let i = 0; i < width * height; i++) rgb.set(px.subarray(i * 4, i * 4 + 3), i * 3);
  return { width, height, rgb };
}

/** The mean colour of a rectangle (fractions of the picture's width and height). */
export function meanColour(p: DecodedPng, x0: number, x1: number, y0: number, y1: number): [number, number, number] {
  const sum = [0, 0, 0];
  let n = 0;
  for (let y = Math.floor(p.height * y0); y < Math.floor(p.height * y1); y++)
    for (let x = Math.floor(p.width * x0); x < Math.floor(p.width * x1); x++) {
      for (let k = 0; k < 3; k++) sum[k]! += p.rgb[(y * p.width + x) * 3 + k]!;
      n++;
    }
  return sum.map((s) => Math.round(s / n)) as [number, number, number];
}
