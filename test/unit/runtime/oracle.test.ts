/**
 * createOracle: one plugin for any host, one start order (the host's ready)
 * and one close order (the host's close aborts running turns, then the
 * runtime closes); the model is injectable (a LanguageModel, or a factory by
 * model id); every handler asks one ownership check.
 */
import { afterAll, describe, expect, it } from 'vitest';
import Fastify from 'fastify';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createOracle } from '../../../src/runtime/oracle.ts';
import { createOracleApp } from '../../../src/runtime/app.ts';
import { scriptedModel, say } from '../../../src/testing.ts';
import { startHarness } from '../../helpers/runtime-harness.ts';
import { isOracleKitError } from '../../../src/lib/errors.ts';

const dir = mkdtempSync(join(tmpdir(), 'oraclekit-oracle-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const silent = { info: () => {}, error: () => {} };
const USER = 'did:key:z6MkuserA';

describe('the lifecycle follows the host', () => {
  it("starts on the host's ready; the host's close aborts running turns, then closes the runtime; close is idempotent", async () => {
    const model = scriptedModel();
    const oracle = createOracle({
      config: { name: 'L', oracleDid: 'did:key:z6Mkoracle' },
      dbPath: join(dir, 'l.db'),
      env: {},
      model,
      logger: silent,
      signingMnemonic: '',
    });
    const host = Fastify();
    await host.register(oracle.plugin, { prefix: '/oracle' });
    expect(oracle.socket()).toBeUndefined();
    await host.ready();
    expect(oracle.socket()).toBeDefined();
    const s = await oracle.runtime.store.createSession(USER);
    model.enqueue({
      steps: [
        { type: 'text', text: 'slow' },
        { type: 'delay', ms: 60_000 },
      ],
    });
    const run = await oracle.runtime.startTurn(USER, s.sessionId, { message: 'hi' });
    await host.close();
    expect(await run.done).toBe('aborted');
    expect(model.aborted).toBe(1);
    await expect(oracle.runtime.db.get('SELECT 1')).rejects.toThrow(); // its own database is closed
    await oracle.close();
  });

  it('one plugin for one host', async () => {
    const oracle = createOracle({
      config: { name: 'O' },
      dbPath: join(dir, 'o.db'),
      env: {},
      logger: silent,
      signingMnemonic: '',
    });
    const a = Fastify();
    await a.register(oracle.plugin);
    const b = Fastify();
    await expect(b.register(oracle.plugin)).rejects.toThrow(
      'this oracle is already registered: createOracle() gives one plugin for one host',
    );
    await a.close();
    await b.close();
  });
});

describe('the model', () => {
  it('a factory gets the id of each turn: config.model, or the listed model a request names', async () => {
    const m = scriptedModel();
    m.fallback = say('ok');
    const ids: string[] = [];
    const h = await startHarness({
      model: (id) => (ids.push(id), m),
      config: { name: 'Factory', model: 'scripted-model', models: ['another-model'] },
    });
    try {
      const u = await h.user();
      const s = await u.newSession();
      await u.stream(s, 'one');
      await u.stream(s, 'two', { model: 'another-model' });
      expect(ids).toEqual(['scripted-model', 'scripted-model', 'another-model', 'another-model']); // startTurn checks it, the turn uses it
      expect(h.model.requests).toHaveLength(0); // the model server was never called
    } finally {
      await h.close();
    }
  });

  it('a LanguageModel serves every turn, and names the default model when the config names none', async () => {
    const app = createOracleApp({
      config: { name: 'M' },
      dbPath: join(dir, 'm.db'),
      env: {},
      model: scriptedModel({ modelId: 'in-process' }),
      logger: silent,
      signingMnemonic: '',
    });
    try {
      const r = await app.fastify.inject({ method: 'GET', url: '/models' });
      expect(r.json()).toEqual({ models: [{ id: 'in-process', name: 'in-process' }], default: 'in-process' });
      expect(app.runtime.model('anything').modelId).toBe('in-process');
    } finally {
      await app.close();
    }
  });

  it('without a model option and without LLM_BASE_URL, a turn is refused with model_not_configured', async () => {
    const app = createOracleApp({
      config: { name: 'N', model: 'm' },
      dbPath: join(dir, 'n.db'),
      env: {},
      logger: silent,
      signingMnemonic: '',
    });
    try {
      let err: unknown;
      try {
        app.runtime.model();
      } catch (e) {
        err = e;
      }
      expect(isOracleKitError(err) && err.toBody()).toMatchObject({
        statusCode: 503,
        code: 'model_not_configured',
        message: 'no model configured: set LLM_BASE_URL and the model in oracle.config.json',
      });
    } finally {
      await app.close();
    }
  });
});

describe('session ownership', () => {
  it("one check: another user's session answers like a missing one", async () => {
    const app = createOracleApp({
      config: { name: 'S' },
      dbPath: join(dir, 's.db'),
      env: {},
      logger: silent,
      signingMnemonic: '',
    });
    try {
      const s = await app.runtime.store.createSession(USER);
      expect(await app.runtime.ownSession(USER, s.sessionId)).toMatchObject({ sessionId: s.sessionId });
      for (const [who, id] of [
        ['did:key:z6MkuserB', s.sessionId],
        [USER, 'no-such-session'],
      ]) {
        await expect(app.runtime.ownSession(who!, id!)).rejects.toThrow(
          expect.objectContaining({ status: 404, code: 'session_not_found', message: `no session ${id}` }),
        );
      }
    } finally {
      await app.close();
    }
  });
});
