/**
 * UUIDv7 (RFC 9562, section 5.7): a 48-bit Unix-millisecond timestamp, then
 * 74 random bits, so ids sort by creation time. Registry records use them as
 * keys: a time-ordered key is appended to the right edge of its unique index
 * instead of landing on a random leaf page, so a group commit of N records
 * rewrites a few pages, not N (measured in bench/registry.ts).
 *
 * Within one millisecond the 12 bits after the version count up (RFC 9562
 * "Method 1", a fixed-length dedicated counter seeded randomly), so ids made
 * by one process are strictly increasing; if the counter runs out the
 * timestamp is advanced by one millisecond.
 */
let lastMs = -1;
let counter = 0;
// random bytes drawn in bulk: one getRandomValues per id cost ~8 µs
const pool = new Uint8Array(4096);
let poolAt = pool.length;
function random(n: number): Uint8Array {
  if (poolAt + n > pool.length) {
    crypto.getRandomValues(pool);
    poolAt = 0;
  }
  poolAt += n;
  return pool.subarray(poolAt - n, poolAt);
}

export function uuidv7(now: number = Date.now()): string {
  let ms = Math.max(now, lastMs);
  if (ms === lastMs) {
    counter++;
    if (counter > 0xfff) {
      ms++;
      counter = randomCounterSeed();
    }
  } else {
    counter = randomCounterSeed();
  }
  lastMs = ms;
  const b = new Uint8Array(16);
  b.set(random(8), 8);
  // 48-bit big-endian millisecond timestamp
  const hi = Math.floor(ms / 2 ** 16);
  b[0] = (hi >>> 24) & 0xff;
  b[1] = (hi >>> 16) & 0xff;
  b[2] = (hi >>> 8) & 0xff;
  b[3] = hi & 0xff;
  b[4] = (ms >>> 8) & 0xff;
  b[5] = ms & 0xff;
  b[6] = 0x70 | (counter >>> 8); // version 7 + counter high 4 bits
  b[7] = counter & 0xff;
  b[8] = 0x80 | (b[8]! & 0x3f); // variant 10
  let hex = '';
  for (const x of b) hex += (x < 16 ? '0' : '') + x.toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** A random start for the in-millisecond counter, leaving room to count up. */
function randomCounterSeed(): number {
  const r = random(2);
  return ((r[0]! << 8) | r[1]!) & 0x7ff;
}
