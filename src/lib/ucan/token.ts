/**
 * The tokens a client signs (protocol.md, "Authentication"), written without ucanto: an invocation or a delegation
 * from the user to the oracle, with no proofs, as the base64 of its CAR archive. The bytes are exactly those of
 * ucanto's `invoke(…).delegate()` / `delegate(…)` followed by `Delegation.archive` (test/unit/lib/ucan/token.test.ts
 * compares them); ucan.ts is the full path (proofs, decoding) the runtime and the CLI use. A browser pays here for
 * a few hundred lines of CBOR and CAR instead of ucanto, cborg and multiformats.
 *
 * The UCAN is dag-ucan 0.9.1 in its IPLD form: a DAG-CBOR map {s, v, att, aud, exp, iss, nbf?, nnc?, prf} whose
 * signature covers the JWT form `base64url(header).base64url(payload)` of the same fields (DAG-JSON, keys sorted).
 * The archive is a CARv1 whose root is the block {"ucan@0.9.1": <the UCAN's CID>}, after the UCAN's own block.
 */
import { base58Decode } from '../did/did.ts';

/** What signs a token: a did:key Ed25519 principal (this package's signer, or a ucanto one). */
export interface UcanSigner {
  did(): string;
  sign(payload: Uint8Array): { raw: Uint8Array } | PromiseLike<{ raw: Uint8Array }>;
}

export interface TokenOptions {
  issuer: UcanSigner;
  /** The oracle's DID. */
  audience: string;
  capabilities: { can: string; with: string }[];
  /** Seconds since the epoch. */
  expiration: number;
  notBefore?: number;
  nonce?: string;
}

const VERSION = '0.9.1';
/** varsig code of an EdDSA (Ed25519) signature, the only kind a did:key user of an oracle signs with. */
const EDDSA = 0xd0ed;
const DAG_CBOR = 0x71;
const SHA2_256 = 0x12;
/** multicodec of a DID that is not did:key, which dag-ucan stores as this code and the text after `did:`. */
const DID_CORE = 0x0d1d;

/** The token of a UCAN with these fields, signed by the issuer: base64 of its CAR archive. */
export async function mintToken(o: TokenOptions): Promise<string> {
  const iss = o.issuer.did();
  const att = o.capabilities.map((c) => ({ can: c.can, with: c.with }));
  const nbf = o.notBefore || undefined;
  // the JWT form signed, DAG-JSON: keys sorted by length, then bytes; optionals left out
  const header = { alg: 'EdDSA', typ: 'JWT', ucv: VERSION };
  const payload = { att, aud: o.audience, exp: o.expiration, iss, nbf, nnc: o.nonce || undefined, prf: [] };
  const signed = `${base64url(utf8(JSON.stringify(header)))}.${base64url(utf8(JSON.stringify(payload)))}`;
  const { raw } = await o.issuer.sign(utf8(signed));

  const ucan = cbor(
    new Map<string, Cbor>([
      ['s', concat(varint(EDDSA), varint(raw.length), raw)],
      ['v', VERSION],
      ['att', att.map((c) => new Map<string, Cbor>(Object.entries(c)))],
      ['aud', didBytes(o.audience)],
      ['exp', o.expiration],
      ['iss', didBytes(iss)],
      ...(nbf ? [['nbf', nbf] as [string, Cbor]] : []),
      ...(o.nonce != null ? [['nnc', o.nonce] as [string, Cbor]] : []),
      ['prf', []],
    ]),
  );
  const ucanCid = await cid(ucan);
  const root = cbor(new Map<string, Cbor>([[`ucan@${VERSION}`, new Link(ucanCid)]]));
  const rootCid = await cid(root);
  const carHeader = cbor(
    new Map<string, Cbor>([
      ['roots', [new Link(rootCid)]],
      ['version', 1],
    ]),
  );
  const car = concat(
    varint(carHeader.length),
    carHeader,
    varint(ucanCid.length + ucan.length),
    ucanCid,
    ucan,
    varint(rootCid.length + root.length),
    rootCid,
    root,
  );
  return btoa(Array.from(car, (b) => String.fromCharCode(b)).join(''));
}

/** A DID as dag-ucan stores it: a did:key's multicodec public key, else DID_CORE and the text after `did:`. */
function didBytes(did: string): Uint8Array {
  if (!did.startsWith('did:')) throw new RangeError(`${did} is not a DID`);
  if (did.startsWith('did:key:z')) {
    const key = base58Decode(did.slice('did:key:z'.length));
    if (!key) throw new RangeError(`${did} is not a did:key (base58btc)`);
    return key;
  }
  return concat(varint(DID_CORE), utf8(did.slice(4)));
}

/** A CIDv1 (DAG-CBOR, SHA-256) of the bytes. */
async function cid(bytes: Uint8Array): Promise<Uint8Array> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes as Uint8Array<ArrayBuffer>));
  return concat(Uint8Array.of(1, DAG_CBOR, SHA2_256, digest.length), digest);
}

/** A CID link: CBOR tag 42 over its bytes behind the identity multibase prefix 0. */
class Link {
  readonly bytes: Uint8Array;
  constructor(bytes: Uint8Array) {
    this.bytes = bytes;
  }
}
type Cbor = number | string | Uint8Array | Link | Cbor[] | Map<string, Cbor>;

/**
 * DAG-CBOR of the values a UCAN holds: unsigned integers, text, bytes, links, arrays, and maps written in the
 * order given (the callers list their keys in DAG-CBOR's order: shorter first, then bytewise).
 */
function cbor(v: Cbor): Uint8Array {
  const out: number[] = [];
  const head = (major: number, n: number) => {
    if (n < 24) out.push((major << 5) | n);
    else if (n < 0x100) out.push((major << 5) | 24, n);
    else if (n < 0x10000) out.push((major << 5) | 25, n >> 8, n & 0xff);
    else if (n < 0x1_0000_0000) out.push((major << 5) | 26, n >>> 24, (n >> 16) & 0xff, (n >> 8) & 0xff, n & 0xff);
    else {
      out.push((major << 5) | 27);
      for (let i = 7; i >= 0; i--) out.push(Math.floor(n / 2 ** (8 * i)) & 0xff);
    }
  };
  const write = (x: Cbor): void => {
    if (typeof x === 'number') {
      if (!Number.isSafeInteger(x) || x < 0) throw new RangeError(`${x} is not an unsigned integer`);
      head(0, x);
    } else if (typeof x === 'string') {
      const b = utf8(x);
      head(3, b.length);
      out.push(...b);
    } else if (x instanceof Uint8Array) {
      head(2, x.length);
      out.push(...x);
    } else if (x instanceof Link) {
      out.push(0xd8, 42);
      head(2, x.bytes.length + 1);
      out.push(0, ...x.bytes);
    } else if (Array.isArray(x)) {
      head(4, x.length);
      x.forEach(write);
    } else {
      head(5, x.size);
      for (const [k, val] of x) {
        write(k);
        write(val);
      }
    }
  };
  write(v);
  return Uint8Array.from(out);
}

function varint(n: number): Uint8Array {
  const out: number[] = [];
  while (n >= 0x80) {
    out.push((n & 0x7f) | 0x80);
    n = Math.floor(n / 128);
  }
  out.push(n);
  return Uint8Array.from(out);
}

function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((s, p) => s + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

const utf8 = (s: string): Uint8Array => new TextEncoder().encode(s);

function base64url(bytes: Uint8Array): string {
  return btoa(Array.from(bytes, (b) => String.fromCharCode(b)).join(''))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');
}
