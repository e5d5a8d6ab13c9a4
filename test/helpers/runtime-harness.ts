/**
 * Starts a real oracle runtime on 127.0.0.1 (random port) with a temp SQLite
 * file (or the PostgreSQL database of `databaseUrl`: the suites that run on
 * both backends pass backendDatabases(backend).fresh(…) from
 * test/helpers/postgres.ts), the scripted model server and the Open-Meteo
 * server, plus an HTTP/SSE client that mints a fresh UCAN invocation per
 * request.
 */
import { pino } from 'pino';
import { io as ioConnect, type Socket } from 'socket.io-client';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createOracleApp, type OracleApp, type OracleAppServerOptions } from '../../src/runtime/app.ts';
import { generateMnemonic, generateSigner, signerFromMnemonic, type Signer } from '../../src/lib/keys/keys.ts';
import { mintInvocation } from '../../src/lib/ucan/ucan.ts';
import { OracleEventParser, type AnyEvent } from '../../src/lib/protocol/index.ts';
import { startScriptedModelServer, type ScriptedModelServer } from './scripted-model-server.ts';
import { startOpenMeteoServer, type OpenMeteoServer } from './open-meteo-server.ts';

export interface Harness {
  app: OracleApp;
  url: string;
  oracleDid: string;
  model: ScriptedModelServer;
  meteo: OpenMeteoServer;
  /** The boot lines. */
  lines: string[];
  /** The oracle's log (pino records: requests, failed turns and tools). */
  logs: Record<string, unknown>[];
  /** What the oracle said: its boot lines, then its log's messages (a plugin's lines go to the log under its name). */
  said(): string;
  dir: string;
  user(): Promise<Client>;
  close(): Promise<void>;
}

interface Client {
  signer: Signer;
  did: string;
  headers(extra?: Record<string, string>): Promise<Record<string, string>>;
  req(
    method: string,
    path: string,
    body?: unknown,
    extra?: Record<string, string>,
  ): Promise<{ status: number; body: any; headers: Headers }>; // eslint-disable-line @typescript-eslint/no-explicit-any
  /** POST /messages/:id with stream:true; collects every SSE event until the stream ends. */
  stream(
    sessionId: string,
    message: string,
    extra?: Record<string, unknown>,
  ): Promise<{ events: AnyEvent[]; headers: Headers; raw: string }>;
  /** GET an SSE path and collect events. */
  sse(
    path: string,
    opts?: { stopAfter?: (e: AnyEvent) => boolean },
  ): Promise<{ events: AnyEvent[]; headers: Headers; raw: string }>;
  newSession(): Promise<string>;
  /** A socket.io connection to the session's room, authenticated with a fresh invocation. */
  socket(sessionId: string): Promise<Socket>;
}

/** A socket.io connection to a session's room with this handshake auth: websocket only, no reconnection, its own. */
export function sessionSocket(url: string, sessionId: string, auth: Record<string, string>): Socket {
  return ioConnect(url, {
    path: '/socket.io/',
    transports: ['websocket'],
    query: { sessionId },
    auth,
    reconnection: false,
    forceNew: true,
  });
}

/** The handshake's outcome: the connected socket, or the refusal's code and status (the socket then closed). */
export function handshake(
  url: string,
  sessionId: string,
  auth: Record<string, string>,
): Promise<{ ok: true; socket: Socket } | { ok: false; code: string; status: number }> {
  return new Promise((resolve) => {
    const s = sessionSocket(url, sessionId, auth);
    s.on('connect', () => resolve({ ok: true, socket: s }));
    s.on('connect_error', (err: Error & { data?: { code: string; statusCode: number } }) => {
      s.close();
      resolve({ ok: false, code: err.data?.code ?? 'none', status: err.data?.statusCode ?? 0 });
    });
  });
}

export async function readSse(
  res: Response,
  stopAfter?: (e: AnyEvent) => boolean,
  controller?: AbortController,
): Promise<{ events: AnyEvent[]; raw: string }> {
  // a frame the parser would skip is a defect of the server under test
  const parser = new OracleEventParser({
    onIgnored: (frame, reason) => {
      throw new Error(`SSE frame ${JSON.stringify(frame)} is not a protocol event: ${reason}`);
    },
  });
  const events: AnyEvent[] = [];
  let raw = '';
  const dec = new TextDecoder();
  const reader = res.body!.getReader();
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      const t = dec.decode(value, { stream: true });
      raw += t;
      for (const e of parser.push(t)) {
        events.push(e);
        if (stopAfter?.(e)) {
          controller?.abort();
          await reader.cancel().catch(() => {});
          return { events, raw };
        }
      }
    }
  } catch (e) {
    if (!controller?.signal.aborted) throw e;
  }
  return { events, raw };
}

export async function startHarness(
  opts: Partial<OracleAppServerOptions> & { env?: Record<string, string | undefined> } = {},
): Promise<Harness> {
  const dir = mkdtempSync(join(tmpdir(), 'oraclekit-rt-'));
  const model = await startScriptedModelServer();
  const meteo = await startOpenMeteoServer();
  // a given mnemonic makes another instance of the same oracle (the same DID)
  const mnemonic = opts.signingMnemonic || generateMnemonic();
  const oracle = await signerFromMnemonic(mnemonic);
  const lines: string[] = [];
  const logs: Record<string, unknown>[] = [];
  const { config: ownConfig, env: ownEnv, ...rest } = opts;
  const app = createOracleApp({
    config: { name: 'Test Oracle', model: 'scripted-model', oracleDid: oracle.did(), ...(ownConfig ?? {}) },
    ...(rest.databaseUrl === undefined && rest.database === undefined ? { dbPath: join(dir, 'oracle.db') } : {}),
    logger: { info: (l) => lines.push(l), error: (l) => lines.push(l) },
    pino: pino({ level: 'info' }, { write: (l: string) => void logs.push(JSON.parse(l) as Record<string, unknown>) }),
    signingMnemonic: mnemonic,
    heartbeatMs: 15_000,
    stallTimeoutMs: 1500,
    toolTimeoutMs: 1500,
    ...rest,
    env: {
      LLM_BASE_URL: model.baseURL,
      LLM_PROVIDER_API_KEY: 'sk-test-secret',
      WEATHER_GEOCODING_URL: meteo.url,
      WEATHER_FORECAST_URL: meteo.url,
      ...(ownEnv ?? {}),
    },
  });
  const url = await app.listen(0, '127.0.0.1');
  // wait for the signing key (loaded in the background)
  for (let i = 0; opts.signingMnemonic !== '' && i < 400 && !app.runtime.signingKeyLoaded; i++)
    await new Promise((r) => setTimeout(r, 5));
  const oracleDid = oracle.did();

  const makeClient = async (): Promise<Client> => {
    const signer = await generateSigner();
    const c: Client = {
      signer,
      did: signer.did(),
      async headers(extra = {}) {
        return {
          authorization: `Bearer ${await mintInvocation({ issuer: signer, audience: oracleDid })}`,
          'x-auth-type': 'ucan',
          ...extra,
        };
      },
      async req(method, path, body, extra) {
        const h = await c.headers(extra);
        if (body !== undefined) h['content-type'] = 'application/json';
        const res = await fetch(url + path, {
          method,
          headers: h,
          body: body === undefined ? undefined : JSON.stringify(body),
        });
        const text = await res.text();
        return { status: res.status, body: text ? JSON.parse(text) : undefined, headers: res.headers };
      },
      async stream(sessionId, message, extra = {}) {
        const res = await fetch(`${url}/messages/${sessionId}`, {
          method: 'POST',
          headers: { ...(await c.headers()), 'content-type': 'application/json' },
          body: JSON.stringify({ message, stream: true, ...extra }),
        });
        if (res.status !== 200) throw new Error(`stream ${res.status}: ${await res.text()}`);
        const { events, raw } = await readSse(res);
        return { events, headers: res.headers, raw };
      },
      async sse(path, o = {}) {
        const ctl = new AbortController();
        const res = await fetch(url + path, { headers: await c.headers(), signal: ctl.signal });
        if (res.status !== 200) throw new Error(`sse ${res.status}: ${await res.text()}`);
        const { events, raw } = await readSse(res, o.stopAfter, ctl);
        return { events, headers: res.headers, raw };
      },
      async socket(sessionId) {
        const invocation = await mintInvocation({ issuer: signer, audience: oracleDid });
        const hs = await handshake(url, sessionId, { invocation });
        if (!hs.ok) throw new Error(`socket handshake refused: ${hs.code}`);
        return hs.socket;
      },
      async newSession() {
        const r = await c.req('POST', '/sessions', {});
        if (r.status !== 201) throw new Error(`session ${r.status} ${JSON.stringify(r.body)}`);
        return r.body.sessionId as string;
      },
    };
    return c;
  };

  return {
    app,
    url,
    oracleDid,
    model,
    meteo,
    lines,
    logs,
    said: () => [...lines, ...logs.map((l) => String(l.msg))].join('\n'),
    dir,
    user: makeClient,
    async close() {
      await app.close();
      await model.close();
      await meteo.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
