/**
 * QR-code sign-in. The command itself runs a short-lived callback server
 * (loopback by default; the daemon has no sign-in route). The QR code holds
 * the request's URL (the callback, short enough for a QR code that fits an
 * 80x24 terminal); `GET` on it answers the request, the message to sign and
 * a short code the wallet shows so the person can check it is this request.
 * Where the QR code cannot fit, the URL and the code are shown instead (as
 * `gh auth login` does). Off a terminal the full sign-in link is printed too:
 *
 *   oraclekit:signin?v=1&challenge=<32 random bytes, base64url>&callback=<URL>&aud=<local did:key>&exp=<unix s>
 *
 * The wallet signs the UTF-8 bytes of `signInMessage(request)` with its
 * Ed25519 key (or secp256k1: ECDSA over SHA-256, compact) and POSTs
 * `{did, challenge, signature}` (signature base64url or base64, 64 bytes) as
 * JSON to the callback URL. The server checks the
 * challenge, the expiry and the signature against the did:key's public key,
 * answers 200 {ok, did}, and the command takes the wallet's DID.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { networkInterfaces } from 'node:os';
import { ed25519 } from '@noble/curves/ed25519.js';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { base58Decode } from '../../lib/did/did.ts';
import { cliError } from '../errors.ts';
import { createSha256 } from '../../lib/hash.ts';

export interface SignInRequest {
  v: 1;
  challenge: string;
  callback: string;
  aud: string;
  exp: number;
}

export function signInMessage(r: SignInRequest): string {
  return `oraclekit sign-in\nchallenge: ${r.challenge}\naudience: ${r.aud}\ncallback: ${r.callback}\nexpires: ${r.exp}`;
}

/**
 * The code a wallet shows for a request, for the person to compare with the terminal: 8 characters of the
 * challenge's SHA-256 in Crockford's base32 (no I, L, O, U), as XXXX-XXXX.
 */
export function signInCode(challenge: string): string {
  const alphabet = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
  const h = createSha256().update(challenge).digest();
  let bits = 0n;
  for (const b of h.subarray(0, 5)) bits = (bits << 8n) | BigInt(b);
  let code = '';
  for (let i = 7; i >= 0; i--) code += alphabet[Number((bits >> BigInt(i * 5)) & 31n)];
  return `${code.slice(0, 4)}-${code.slice(4)}`;
}

function signInLink(r: SignInRequest): string {
  const q = new URLSearchParams({
    v: String(r.v),
    challenge: r.challenge,
    callback: r.callback,
    aud: r.aud,
    exp: String(r.exp),
  });
  return `oraclekit:signin?${q.toString()}`;
}

export function parseSignInLink(link: string): SignInRequest {
  const q = new URLSearchParams(link.slice(link.indexOf('?') + 1));
  return {
    v: 1,
    challenge: q.get('challenge') ?? '',
    callback: q.get('callback') ?? '',
    aud: q.get('aud') ?? '',
    exp: Number(q.get('exp')),
  };
}

/** A did:key's public key: Ed25519 (0xed, 32 bytes) or secp256k1 (0xe7, 33 bytes compressed); undefined otherwise. */
export function keyOfDid(did: string): { type: 'ed25519' | 'secp256k1'; pub: Uint8Array } | undefined {
  const ed = ed25519KeyOfDid(did);
  if (ed) return { type: 'ed25519', pub: ed };
  if (!did.startsWith('did:key:z')) return undefined;
  const bytes = base58Decode(did.slice('did:key:z'.length));
  if (!bytes || bytes.length !== 35 || bytes[0] !== 0xe7 || bytes[1] !== 0x01) return undefined;
  return { type: 'secp256k1', pub: bytes.subarray(2) };
}

/** The 32-byte Ed25519 public key of a did:key, or undefined for any other key type. */
export function ed25519KeyOfDid(did: string): Uint8Array | undefined {
  if (!did.startsWith('did:key:z')) return undefined;
  const bytes = base58Decode(did.slice('did:key:z'.length));
  if (!bytes || bytes.length !== 34 || bytes[0] !== 0xed || bytes[1] !== 0x01) return undefined;
  return bytes.subarray(2);
}

function decodeSig(s: string): Uint8Array | undefined {
  const b = Buffer.from(s.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
  return b.length === 64 ? new Uint8Array(b) : undefined;
}

interface SignInServer {
  request: SignInRequest;
  link: string;
  /** Resolves with the wallet's DID once a valid signature arrives; rejects on time-out or close. */
  result: Promise<{ did: string }>;
  close(): Promise<void>;
}

interface SignInOptions {
  /** The local key's DID the wallet vouches for. */
  aud: string;
  /** Bind address of the callback server (default 127.0.0.1). */
  host?: string;
  port?: number;
  /** The public base URL the wallet should call (default http://<host>:<port>). */
  publicUrl?: string;
  timeoutMs?: number;
  /** Abort (Ctrl+C in `new`) ends the wait. */
  signal?: AbortSignal;
}

const reply = (res: ServerResponse, status: number, body: unknown) => {
  res
    .writeHead(status, { 'content-type': 'application/json', 'access-control-allow-origin': '*' })
    .end(JSON.stringify(body));
};
const fail = (res: ServerResponse, status: number, code: string, message: string) =>
  reply(res, status, { statusCode: status, code, message });

/** The CORS preflight of the wallet's page, which POSTs JSON to the callback from its own origin. */
const preflight = (res: ServerResponse): void => {
  res
    .writeHead(200, {
      'access-control-allow-origin': '*',
      'access-control-allow-methods': 'GET, POST',
      'access-control-allow-headers': 'content-type',
    })
    .end('{}');
};

/** Why a sign-in answer is refused: the HTTP status, a stable code and a message. */
type Refusal = [status: number, code: string, message: string];

/**
 * A wallet's POSTed answer to a sign-in request: {did, challenge, signature} as JSON, this request's challenge,
 * before it expires, signed over the request's message by the DID's own key (Ed25519 or secp256k1).
 */
function checkSignInAnswer(raw: string, request: SignInRequest): { did: string } | Refusal {
  let body: { did?: unknown; challenge?: unknown; signature?: unknown };
  try {
    body = JSON.parse(raw) as typeof body;
  } catch {
    return [400, 'invalid_json', 'send {did, challenge, signature} as JSON'];
  }
  if (typeof body.did !== 'string' || typeof body.challenge !== 'string' || typeof body.signature !== 'string')
    return [400, 'missing_field', 'send {did, challenge, signature}'];
  if (body.challenge !== request.challenge)
    return [400, 'wrong_challenge', 'the challenge does not match this request'];
  if (Math.floor(Date.now() / 1000) > request.exp) return [410, 'expired', 'the sign-in request has expired'];
  const key = keyOfDid(body.did);
  if (!key)
    return [
      400,
      'unsupported_did',
      'a did:key of an Ed25519 (did:key:z6Mk…) or secp256k1 (did:key:zQ3s…) key is required',
    ];
  const sig = decodeSig(body.signature);
  let valid: boolean;
  try {
    const msg = new TextEncoder().encode(signInMessage(request));
    // secp256k1: ECDSA over SHA-256 of the message, compact 64-byte signature (low S)
    valid =
      sig !== undefined &&
      (key.type === 'ed25519' ? ed25519.verify(sig, msg, key.pub) : secp256k1.verify(sig, msg, key.pub));
  } catch {
    valid = false;
  }
  if (!valid) return [401, 'bad_signature', 'the signature does not verify against the DID'];
  return { did: body.did };
}

export async function startSignIn(o: SignInOptions): Promise<SignInServer> {
  const id = randomBytes(9).toString('base64url');
  const challenge = randomBytes(32).toString('base64url');
  const timeoutMs = o.timeoutMs ?? 120_000;
  let settle!: { ok: (v: { did: string }) => void; fail: (e: Error) => void };
  const result = new Promise<{ did: string }>((ok, fail) => (settle = { ok, fail }));
  result.catch(() => {});
  const holder = {} as { request: SignInRequest };
  let done = false;

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    void (async () => {
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      if (path !== `/signin/${id}`) return fail(res, 404, 'not_found', 'no such sign-in request');
      if (req.method === 'OPTIONS') return preflight(res);
      if (req.method === 'GET')
        return reply(res, 200, {
          ...holder.request,
          message: signInMessage(holder.request),
          code: signInCode(holder.request.challenge),
        });
      if (req.method !== 'POST') return fail(res, 405, 'method_not_allowed', 'GET or POST');
      if (done) return fail(res, 409, 'already_signed_in', 'this sign-in request is already used');
      let raw = '';
      for await (const c of req) {
        raw += c;
        if (raw.length > 16_384) return fail(res, 413, 'too_large', 'body too large');
      }
      const answer = checkSignInAnswer(raw, holder.request);
      if (Array.isArray(answer)) return fail(res, ...answer);
      done = true;
      reply(res, 200, { ok: true, did: answer.did });
      settle.ok({ did: answer.did });
    })().catch((e: Error) => fail(res, 500, 'internal', e.message));
  });
  await new Promise<void>((ok, ko) => {
    server.once('error', ko);
    server.listen(o.port ?? 0, o.host ?? '127.0.0.1', () => ok());
  });
  const port = (server.address() as AddressInfo).port;
  // bound to every interface: advertise this machine's address on its network (a phone on it can reach that)
  const host = o.host && o.host !== '0.0.0.0' && o.host !== '::' ? o.host : o.host ? lanAddress() : '127.0.0.1';
  const base = (o.publicUrl ?? `http://${host.includes(':') ? `[${host}]` : host}:${port}`).replace(/\/+$/, '');
  const request: SignInRequest = {
    v: 1,
    challenge,
    callback: `${base}/signin/${id}`,
    aud: o.aud,
    exp: Math.floor((Date.now() + timeoutMs) / 1000),
  };
  holder.request = request;
  const timer = setTimeout(() => {
    settle.fail(
      cliError(
        'signin_timeout',
        `no wallet signed the sign-in request within ${Math.round(timeoutMs / 1000)} s; run again, or use a mnemonic (--auth mnemonic)`,
        { field: 'timeout' },
      ),
    );
  }, timeoutMs);
  timer.unref();
  const onAbort = () => settle.fail(cliError('cancelled', 'sign-in cancelled'));
  if (o.signal?.aborted) onAbort();
  o.signal?.addEventListener('abort', onAbort, { once: true });
  const close = async () => {
    clearTimeout(timer);
    o.signal?.removeEventListener('abort', onAbort);
    settle.fail(cliError('signin_cancelled', 'sign-in cancelled'));
    server.closeAllConnections();
    await new Promise<void>((ok) => server.close(() => ok()));
  };
  return { request, link: signInLink(request), result, close };
}

/** The first IPv4 address of this machine on a network (not loopback), else 127.0.0.1. */
function lanAddress(): string {
  for (const list of Object.values(networkInterfaces()))
    for (const a of list ?? []) if (a.family === 'IPv4' && !a.internal) return a.address;
  return '127.0.0.1';
}

const LOOPBACK = /^https?:\/\/(127\.[\d.]+|localhost|\[::1\])(:\d+)?\//i;

/**
 * What the terminal shows for a sign-in request, every line at most `columns` wide: the QR code of the request's
 * URL with the URL and the code under it when it all fits in `rows` (with the spinner's line), else the URL and the
 * code alone; a warning when the callback is on loopback, which a phone cannot reach. Off a terminal (`tty` false)
 * the full sign-in link is added, and the QR code is shown whatever its size.
 */
export function signInScreen(
  r: SignInRequest,
  link: string,
  qr: string,
  o: { tty: boolean; rows: number; columns: number; waitS: number },
): string {
  const code = signInCode(r.challenge);
  const loopback = LOOPBACK.exec(r.callback);
  const warning = loopback
    ? [
        `warning: the callback is on ${loopback[1]}, which a phone cannot reach. Use a`,
        'wallet on this computer, or run again with --callback-host 0.0.0.0 (a phone on',
        'this network) or --callback-url <public URL> (a tunnel), or --auth mnemonic.',
      ]
    : [];
  const wait = `waits ${o.waitS} s`;
  const qrLines = qr.replace(/\n+$/, '').split('\n');
  const text = [`or open ${r.callback} in your wallet`, `and check that it shows the code ${code} (${wait})`];
  const fits = qrLines.length + 1 + text.length + warning.length + 1 <= o.rows;
  const wide = Math.max(...qrLines.map((l) => [...l].length)) <= o.columns;
  if (!o.tty)
    return [
      'Scan with your wallet to sign in:',
      ...qrLines,
      ...text,
      `or open this sign-in link in a wallet on this computer:`,
      link,
      ...warning,
    ].join('\n');
  if (fits && wide) return ['Scan with your wallet to sign in:', ...qrLines, ...text, ...warning].join('\n');
  return [
    `Open this link in your wallet to sign in (no room for a QR code here):`,
    `  ${r.callback}`,
    `and check that it shows the code ${code} (${wait})`,
    ...warning,
  ].join('\n');
}

/** Shows the QR code (on stderr) and the link, with a spinner while waiting; returns the wallet's DID. */
export async function qrSignIn(
  o: SignInOptions & { stream?: NodeJS.WriteStream; tty?: boolean },
): Promise<{ did: string; link: string }> {
  const s = await startSignIn(o);
  const stream = o.stream ?? process.stderr;
  const tty = o.tty ?? Boolean(stream.isTTY);
  const { default: qrcode } = await import('qrcode-terminal');
  const qr = await new Promise<string>((ok) =>
    qrcode.generate(s.request.callback, { small: true }, (q: string) => ok(q)),
  );
  const screen = signInScreen(s.request, s.link, qr, {
    tty,
    rows: stream.rows || 24,
    columns: stream.columns || 80,
    waitS: Math.round((o.timeoutMs ?? 120_000) / 1000),
  });
  stream.write(screen + '\n');
  const { slowStep } = await import('../progress.ts');
  try {
    const r = await slowStep("waiting for the wallet's signature", () => s.result, { stream, tty });
    return { did: r.did, link: s.link };
  } finally {
    await s.close();
  }
}
