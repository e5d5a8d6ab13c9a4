/**
 * Boots this oracle (the real runtime) with a scripted model from
 * oraclekit/testing (in-process: no model provider, no network) and talks to
 * it over HTTP on loopback as a user would: a UCAN invocation per request, a
 * session, a message whose answer comes from this project's own tool.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateMnemonic, generateSigner, mintInvocation } from 'oraclekit';
import { buildOracle, loadConfig } from '../src/oracle.ts';
import { localTime } from '../src/plugins/local-time.ts';
import { callTool, lastToolResult, say, scriptedModel } from 'oraclekit/testing';

const config = loadConfig();
const model = scriptedModel();
let app: ReturnType<typeof buildOracle>;
let url: string;
const lines: string[] = [];

async function waitReady(): Promise<void> {
  for (let i = 0; i < 200; i++) {
    const r = await fetch(`${url}/ready`);
    if (r.status === 200) return;
    await new Promise((ok) => setTimeout(ok, 10));
  }
  throw new Error('the oracle never became ready');
}

beforeAll(async () => {
  app = buildOracle({
    model,
    dbPath: ':memory:',
    signingMnemonic: generateMnemonic(),
    logger: { info: (l) => lines.push(l), error: (l) => lines.push(l) },
    env: { LOCAL_TIME_DEFAULT_ZONE: 'Africa/Nairobi' },
  });
  url = await app.listen(0, '127.0.0.1');
  await waitReady();
});

afterAll(async () => {
  await app?.close();
});

describe('the oracle', () => {
  it('boots with the weather plugin and its own local-time plugin', () => {
    expect(lines[0]).toMatch(/^runtime v\d+\.\d+\.\d+$/);
    const status = app.plugins.status();
    expect(status.loaded).toEqual(expect.arrayContaining(['weather', 'local-time']));
  });

  it('answers /health with its name and DID from oracle.config.json', async () => {
    const r = await fetch(`${url}/health`);
    expect(r.status).toBe(200);
    expect(await r.json()).toMatchObject({ name: config.name, oracleDid: config.oracleDid });
  });

  it('answers a user through its own tool', async () => {
    const user = await generateSigner();
    const headers = async () => ({
      authorization: `Bearer ${await mintInvocation({ issuer: user, audience: config.oracleDid! })}`,
      'x-auth-type': 'ucan',
      'content-type': 'application/json',
    });
    const s = await fetch(`${url}/sessions`, { method: 'POST', headers: await headers(), body: '{}' });
    expect(s.status).toBe(201);
    const { sessionId } = (await s.json()) as { sessionId: string };

    model.enqueue(callTool('get_local_time', {}), (body) => {
      const r = lastToolResult(body) as { timeZone: string };
      return say(`It is now ${r.timeZone} time.`);
    });
    const m = await fetch(`${url}/messages/${sessionId}`, { method: 'POST', headers: await headers(), body: JSON.stringify({ message: 'What time is it?', stream: false }) });
    expect(m.status).toBe(200);
    const reply = (await m.json()) as { message: { content: string } };
    expect(reply.message.content).toBe('It is now Africa/Nairobi time.');
    // the model was offered the project's tool from the first step
    expect(model.requests[0]!.body.tools?.map((t) => t.function.name)).toContain('get_local_time');
  });

  it('refuses a request without credentials', async () => {
    const r = await fetch(`${url}/sessions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(r.status).toBe(401);
  });
});

describe('the local-time plugin', () => {
  it('formats a time zone and refuses an unknown one', () => {
    const at = new Date('2026-01-01T12:00:00Z');
    expect(localTime('Africa/Nairobi', at)).toMatchObject({ timeZone: 'Africa/Nairobi', iso: '2026-01-01T12:00:00.000Z' });
    expect(localTime('Africa/Nairobi', at).local).toContain('15:00:00');
    expect(() => localTime('Mars/Olympus')).toThrow(/unknown time zone/);
  });
});
