/**
 * `oraclekit chat --oracle <DID>` resolves the DID through the same registry
 * and key as every registry command: the local daemon by
 * default, the key from $ORACLEKIT_API_KEY or the saved one. Everything is
 * real: the built CLI as a child process, the daemon it starts, an Oracle
 * domain registered through the CLI whose #api/#ws services point at a real
 * runtime (the scripted model server behind it). `token --oracle <DID>` finds
 * the oracle the same way (the identity is the one the chats above created).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.ts';
import { createKey, pointOracleAt, registerInProtocol } from '../helpers/domains.ts';
import { startHarness, type Harness } from '../helpers/runtime-harness.ts';
import { say } from '../helpers/scripted-model-server.ts';
import { tempHome } from '../unit/daemon/harness.ts';

const t = tempHome();
const json = (s: string) => JSON.parse(s) as Record<string, unknown>;
const cli = (args: string[], o: { input?: string; env?: Record<string, string> } = {}) =>
  runCli(args, { env: { ...t.env, ...o.env }, ...(o.input !== undefined ? { input: o.input } : {}) });

let h: Harness;
let key: string;
let oracleDid: string;

beforeAll(async () => {
  const start = await cli(['daemon', 'start', '--json']);
  expect(start.code, start.stderr).toBe(0);
  key = await createKey(cli, 'did:example:rep', ['representative', 'member']);
  // the oracle's DID comes from the registry; the runtime then serves that DID
  oracleDid = await registerInProtocol(cli, key, {
    protocol: 'Oracles',
    type: 'Oracle',
    name: 'Test oracle',
    extra: ['--service', '#api=oracleService,http://127.0.0.1:9'],
  });
  h = await startHarness({ config: { name: 'Registered Oracle', model: 'scripted-model', oracleDid } });
  await pointOracleAt(cli, key, oracleDid, h.url);
});

afterAll(async () => {
  await h?.close();
  await cli(['daemon', 'stop', '--grace', '1']);
  t.cleanup();
});

describe('chat --oracle <DID> through the local registry', () => {
  it('resolves with $ORACLEKIT_API_KEY against the local daemon (no --registry), piped `--chat` and `chat`', async () => {
    expect(oracleDid).toMatch(/^did:/);
    h.model.enqueue(say('Hello through the registry.'), say('And through the chat command.'));
    const r = await cli(['--chat', '--oracle', oracleDid], { input: 'hi\n', env: { ORACLEKIT_API_KEY: key } });
    expect(r.stderr).not.toMatch(/^Error/m);
    expect(r.stdout).toBe('Hello through the registry.\n');
    expect(r.code).toBe(0);
    const c = await cli(['chat', '--oracle', oracleDid], { input: 'again\n', env: { ORACLEKIT_API_KEY: key } });
    expect(c.stdout).toBe('And through the chat command.\n');
    expect(c.code).toBe(0);
  });

  it('resolves the DID without an API key: the registry serves the public part of a domain to anyone', async () => {
    h.model.enqueue(say('Without a key.'));
    const r = await cli(['chat', '--oracle', oracleDid], { input: 'hi\n' });
    expect(r.stderr).not.toMatch(/^Error/m);
    expect(r.stdout).toBe('Without a key.\n');
    expect(r.code).toBe(0);
  });

  it('an unknown DID is not found (exit 6); an unreachable registry is registry_unreachable (exit 9)', async () => {
    const missing = await cli(['chat', '--oracle', 'did:ixo:entity:' + '0'.repeat(32)], {
      input: 'hi\n',
      env: { ORACLEKIT_API_KEY: key },
    });
    expect(missing.code).toBe(6);
    expect(missing.stderr).toMatch(
      /^Error \[domain_not_found\] cannot resolve did:ixo:entity:0+ through the local daemon/m,
    );
    const down = await cli(['chat', '--oracle', oracleDid, '--registry', 'http://127.0.0.1:9'], {
      input: 'hi\n',
      env: { ORACLEKIT_API_KEY: key },
    });
    expect(down.code).toBe(9);
    expect(down.stderr).toMatch(
      /^Error \[registry_unreachable\] cannot resolve did:\S+: the registry at http:\/\/127\.0\.0\.1:9 is unreachable/m,
    );
  });

  it('token --oracle <DID> resolves the same way: a token for that oracle, which it accepts', async () => {
    const r = await cli(['token', '--oracle', oracleDid, '--json']);
    expect(r.code, r.stderr).toBe(0);
    const j = json(r.stdout);
    expect(j).toMatchObject({ oracleDid, url: h.url, authType: 'ucan' });
    const res = await fetch(`${h.url}/sessions`, {
      headers: { authorization: j.authorization as string, 'x-auth-type': 'ucan' },
    });
    expect(res.status).toBe(200);
  });
});
