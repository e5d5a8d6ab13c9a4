/**
 * Exact arithmetic on the decimal inputs of a design. A JS number typed by a
 * person (0.3, 0.453, 1e-7) is read back as its shortest decimal string and
 * turned into the exact fraction p / 10^k, so that for example
 * ceil(315 / (1 - 0.3)) is computed as ceil(3150 / 7) = 450, not 451.
 */
export interface Rational {
  num: bigint;
  den: bigint; // > 0
}

export function fromNumber(x: number): Rational {
  if (!Number.isFinite(x)) throw new RangeError(`not a finite number: ${x}`);
  return fromDecimalString(String(x));
}

/**
 * A fraction x in [0, 1) written with at most 15 decimals in its shortest
 * form (0.15, 0.07, 0.123456789012345), as digits / 10^decimals with both
 * safe integers, so that plain double arithmetic on them is exact; undefined
 * for anything else (1e-7, 0.1234567890123456), which takes the BigInt path.
 * The common inputs (a dropout rate such as 0.1) take the plain path; the
 * property tests compare both paths over random rates.
 */
export function decimalFraction(x: number): { digits: number; scale: number } | undefined {
  if (x === 0) return { digits: 0, scale: 1 };
  const s = String(x);
  if (s.length > 17 || s.charCodeAt(0) !== 48 /* 0 */ || s.charCodeAt(1) !== 46 /* . */) return undefined;
  let digits = 0;
  for (let i = 2; i < s.length; i++) {
    const c = s.charCodeAt(i) - 48;
    if (c < 0 || c > 9) return undefined;
    digits = digits * 10 + c;
  }
  return { digits, scale: 10 ** (s.length - 2) };
}

function fromDecimalString(s: string): Rational {
  const m = /^(-)?(\d+)(?:\.(\d+))?(?:e([+-]?\d+))?$/i.exec(s.trim());
  if (!m) throw new RangeError(`not a decimal number: ${s}`);
  const [, sign, int, frac = '', expStr] = m;
  let num = BigInt(int! + frac);
  const exp = -frac.length + (expStr ? Number(expStr) : 0);
  let den = 1n;
  if (exp >= 0) num *= 10n ** BigInt(exp);
  else den = 10n ** BigInt(-exp);
  if (sign) num = -num;
  return reduce({ num, den });
}

function gcd(a: bigint, b: bigint): bigint {
  a = a < 0n ? -a : a;
  b = b < 0n ? -b : b;
  while (b) [a, b] = [b, a % b];
  return a;
}

function reduce(r: Rational): Rational {
  const g = gcd(r.num, r.den) || 1n;
  const sign = r.den < 0n ? -1n : 1n;
  return { num: (sign * r.num) / g, den: (sign * r.den) / g };
}

export const int = (n: number | bigint): Rational => ({ num: BigInt(n), den: 1n });
export const add = (a: Rational, b: Rational): Rational =>
  reduce({ num: a.num * b.den + b.num * a.den, den: a.den * b.den });
export const sub = (a: Rational, b: Rational): Rational =>
  reduce({ num: a.num * b.den - b.num * a.den, den: a.den * b.den });
export const mul = (a: Rational, b: Rational): Rational => reduce({ num: a.num * b.num, den: a.den * b.den });
export const div = (a: Rational, b: Rational): Rational => {
  if (b.num === 0n) throw new RangeError('division by zero');
  return reduce({ num: a.num * b.den, den: a.den * b.num });
};
export const cmp = (a: Rational, b: Rational): number => {
  const d = a.num * b.den - b.num * a.den;
  return d < 0n ? -1 : d > 0n ? 1 : 0;
};

/** floor for rationals with positive denominators. */
export function floor(r: Rational): bigint {
  const q = r.num / r.den;
  return r.num < 0n && q * r.den !== r.num ? q - 1n : q;
}

export function ceil(r: Rational): bigint {
  const q = r.num / r.den;
  return r.num > 0n && q * r.den !== r.num ? q + 1n : q;
}

/** The exact decimal of a rational whose denominator divides a power of ten; else the nearest double. */
export function toNumber(r: Rational): number {
  let rest = r.den;
  let twos = 0;
  let fives = 0;
  while (rest % 2n === 0n) {
    rest /= 2n;
    twos++;
  }
  while (rest % 5n === 0n) {
    rest /= 5n;
    fives++;
  }
  if (rest !== 1n) return Number(r.num) / Number(r.den);
  const k = Math.max(twos, fives);
  const scaled = (r.num * 10n ** BigInt(k)) / r.den; // exact
  const neg = scaled < 0n;
  const digits = (neg ? -scaled : scaled).toString().padStart(k + 1, '0');
  const s = k === 0 ? digits : `${digits.slice(0, digits.length - k)}.${digits.slice(digits.length - k)}`;
  return Number((neg ? '-' : '') + s);
}
