/**
 * This oracle in a test: the real runtime on loopback with the scripted model of oraclekit/testing (in-process: no
 * model provider, no network), and a user who signs every request (a fresh UCAN invocation addressed to the oracle's
 * DID) and talks to it over HTTP. Tests of your own plugins use it the same way (see test/oracle.test.ts).
 */
import { generateMnemonic, generateSigner, mintInvocation } from 'oraclekit';
import { scriptedModel } from 'oraclekit/testing';
import { buildOracle, loadConfig } from '../src/oracle.ts';

export const config = loadConfig();

export interface Running {
  app: ReturnType<typeof buildOracle>;
  url: string;
  /** The model: enqueue what it does next (callTool, say), read what it was asked (requests). */
  model: ReturnType<typeof scriptedModel>;
  /** The price per turn it charges (oracle.config.json's, unless the test gave another). */
  price: number;
}

/** Starts this oracle; `price` overrides oracle.config.json's, `env` adds variables to the plugins' environment. */
export async function start(o: { price?: number; env?: Record<string, string> } = {}): Promise<Running> {
  const model = scriptedModel();
  const price = o.price ?? config.price ?? 0;
  const app = buildOracle({
    model,
    dbPath: ':memory:',
    signingMnemonic: generateMnemonic(),
    logger: { info: () => {}, error: () => {} },
    // LOG_LEVEL error: the oracle's request lines stay out of the test report; errors still show
    env: { LOCAL_TIME_DEFAULT_ZONE: 'Africa/Nairobi', LOG_LEVEL: 'error', ...o.env },
    config: { ...config, price },
  });
  const url = await app.listen(0, '127.0.0.1');
  for (let i = 0; ; i++) {
    if ((await fetch(`${url}/ready`)).status === 200) break;
    if (i === 200) throw new Error('the oracle never became ready');
    await new Promise((ok) => setTimeout(ok, 10));
  }
  return { app, url, model, price };
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Reply = { status: number; body: any };

/** A signed-in user with a session: `ask` sends a message, `get`/`post` call any route. */
export async function userOf(o: Running) {
  const signer = await generateSigner();
  const call = async (method: string, path: string, body?: unknown): Promise<Reply> => {
    const headers: Record<string, string> = {
      authorization: `Bearer ${await mintInvocation({ issuer: signer, audience: config.oracleDid! })}`,
      'x-auth-type': 'ucan',
    };
    if (body !== undefined) headers['content-type'] = 'application/json';
    const r = await fetch(`${o.url}${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: r.status, body: await r.json() };
  };
  const get = (path: string) => call('GET', path);
  const post = (path: string, body: unknown) => call('POST', path, body);
  const { sessionId } = (await post('/sessions', {})).body as { sessionId: string };
  const ask = (message: string) => post(`/messages/${sessionId}`, { message, stream: false });
  return { did: signer.did(), get, post, ask };
}
