/**
 * A PNG encoder for 8-bit RGB pixels (PNG, RFC 2083 / ISO 15948): the signature, IHDR, one IDAT of the rows (each
 * with filter type 0, none) deflated by node:zlib, IEND; each chunk's CRC-32 is zlib's. Enough for a camera frame
 * handed to a model; no interlacing, no palette, no alpha.
 */
import { crc32, deflateSync } from 'node:zlib';

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

function chunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'ascii');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(data, crc32(head.subarray(4))), 0);
  return Buffer.concat([head, data, crc]);
}

/** The PNG of `rgb` (width × height pixels, 3 bytes each, rows top to bottom). */
export function encodePng(rgb: Uint8Array, width: number, height: number): Buffer {
  if (!Number.isInteger(width) || !Number.isInteger(height) || width < 1 || height < 1)
    throw new RangeError(`a PNG needs a positive integer size, not ${width}×${height}`);
  if (rgb.length !== width * height * 3)
    throw new RangeError(`${width}×${height} RGB pixels are ${width * height * 3} bytes, not ${rgb.length}`);
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 2; // colour type: truecolour
  // compression, filter method and interlace: 0 (deflate, adaptive filtering, none)
  const stride = width * 3;
  const raw = Buffer.alloc((stride + 1) * height);
  for (let y = 0; y < height; y++) raw.set(rgb.subarray(y * stride, (y + 1) * stride), y * (stride + 1) + 1);
  return Buffer.concat([
    SIGNATURE,
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(raw)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}
