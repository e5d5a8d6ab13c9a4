/**
 * UUIDv7 (RFC 9562, section 5.7): a 48-bit Unix-millisecond timestamp, then
 * 74 random bits, so ids sort by creation time. Registry records use them as
 * keys: a time-ordered key is appended to the right edge of its unique index
 * instead of landing on a random page.
 *
 * Within one millisecond the 12 bits after the version count up (RFC 9562
 * "Method 1", a fixed-length dedicated counter seeded randomly), so ids made
 * by one process are strictly increasing; if the counter runs out the
 * timestamp is advanced by one millisecond.
 */
import { randomBytes, randomInt } from 'node:crypto';

let lastMs = -1;
let counter = 0;

export function uuidv7(now: number = Date.now()): string {
  let ms = Math.max(now, lastMs);
  if (ms === lastMs) {
    counter++;
    if (counter > 0xfff) {
      ms++;
      counter = randomInt(0x800); // a random start that leaves room to count up
    }
  } else {
    counter = randomInt(0x800);
  }
  lastMs = ms;
  const bytes = randomBytes(16);
  bytes.writeUIntBE(ms, 0, 6); // 48-bit big-endian milliseconds
  bytes.writeUInt16BE(0x7000 | counter, 6); // version 7, then the counter's 12 bits
  bytes[8] = 0x80 | (bytes[8]! & 0x3f); // variant 10, then 62 random bits
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
