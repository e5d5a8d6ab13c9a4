/** daemon.json through its zod schema, and the daemon's flags and environment resolved once. */
import { describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_CONFIG, loadConfig, parseConfig, resolveSettings } from '../../../src/daemon/config.ts';
import type { OracleKitError } from '../../../src/lib/errors.ts';

const KEY = 'did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK';

describe('parseConfig', () => {
  it('fills defaults; voters get weight 1; rateLimit may be partial; the tally is exact', () => {
    const c = parseConfig({
      voters: [{ did: KEY }, { did: 'did:example:board', weight: 3 }],
      rateLimit: { max: 5 },
      tally: { rule: 'absolute_count', k: 2 },
      $schema: 'x',
      comment: 'y',
    });
    expect(c.voters).toEqual([
      { did: KEY, weight: 1 },
      { did: 'did:example:board', weight: 3 },
    ]);
    expect(c.rateLimit).toEqual({ max: 5, timeWindowMs: DEFAULT_CONFIG.rateLimit.timeWindowMs });
    expect(c.tally).toEqual({ rule: 'absolute_count', k: 2 });
    expect(c.port).toBe(DEFAULT_CONFIG.port);
  });

  it('refuses with invalid_config naming the key, its value and what is valid', () => {
    const cases: [unknown, string, RegExp][] = [
      [{ prot: 1 }, 'prot', /key prot is unknown/],
      [{ oracle: { modle: 'm' } }, 'oracle.modle', /key oracle\.modle is unknown/],
      [{ port: 70000 }, 'port', /port/],
      [{ voters: [{ did: 'not a did' }] }, 'voters[0].did', /voters\[0\]\.did/],
      [{ voters: [{ did: KEY }, { did: KEY }] }, 'voters[1].did', /repeats/],
      [{ voters: [{ did: KEY, weight: 0 }] }, 'voters[0].weight', /weight/],
      [{ bodyLimitBytes: 10 }, 'bodyLimitBytes', /bodyLimitBytes/],
      [{ logLevel: 'loud' }, 'logLevel', /logLevel/],
      [{ oracle: { features: { weather: 'no' } } }, 'oracle.features.weather', /oracle\.features/],
      [[], '(root)', /root/],
    ];
    for (const [raw, field, message] of cases) {
      let err: unknown;
      try {
        parseConfig(raw);
      } catch (e) {
        err = e;
      }
      expect(err, JSON.stringify(raw)).toMatchObject({ code: 'invalid_config', status: 400, field });
      expect((err as Error).message).toMatch(message);
    }
  });
});

describe('loadConfig', () => {
  it('reads daemon.json through the one config-file reader: the file named, a secret in broken JSON never echoed', () => {
    const dir = mkdtempSync(join(tmpdir(), 'oraclekit-config-'));
    try {
      const path = join(dir, 'daemon.json');
      writeFileSync(path, '{"databaseUrl": "postgres://u:hunter2@h/db", ');
      expect(() => loadConfig(path)).toThrow(`${path} is not valid JSON`);
      expect(() => loadConfig(path)).not.toThrow(/hunter2/);
      writeFileSync(path, JSON.stringify({ redisUrl: 'http://u:hunter2@cache' }));
      let err: OracleKitError | undefined;
      try {
        loadConfig(path);
      } catch (e) {
        err = e as OracleKitError;
      }
      expect(err).toMatchObject({ code: 'invalid_config', field: 'redisUrl', value: 'http://u:***@cache' });
      expect(err?.message).toBe(
        `${path}: redisUrl = "http://u:***@cache" is invalid: not a Redis URL: the scheme must be redis:// or rediss://`,
      );
      writeFileSync(path, JSON.stringify({ port: 5001, oracle: { model: 'm' } }));
      expect(loadConfig(path)).toMatchObject({ port: 5001, oracle: { model: 'm' } });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('resolveSettings', () => {
  const config = parseConfig({ port: 5000, host: '127.0.0.2' });
  it('port: --port, then ORACLEKIT_DAEMON_PORT, then daemon.json; host: --host, then daemon.json', () => {
    expect(resolveSettings(config, {}, {})).toEqual({ config, host: '127.0.0.2', port: 5000, dbSynchronous: 'async' });
    expect(resolveSettings(config, {}, { ORACLEKIT_DAEMON_PORT: '0' }).port).toBe(0);
    expect(resolveSettings(config, { port: '6000', host: '::1' }, { ORACLEKIT_DAEMON_PORT: '0' })).toMatchObject({
      port: 6000,
      host: '::1',
    });
    expect(resolveSettings(config, {}, { ORACLEKIT_DB_SYNCHRONOUS: 'FULL' }).dbSynchronous).toBe('FULL');
  });
  it('refuses a bad port or durability mode, naming where it came from', () => {
    expect(() => resolveSettings(config, { port: 'x' }, {})).toThrow(/--port = "x" is not a port/);
    expect(() => resolveSettings(config, {}, { ORACLEKIT_DAEMON_PORT: '99999' })).toThrow(/ORACLEKIT_DAEMON_PORT/);
    expect(() => resolveSettings(config, {}, { ORACLEKIT_DB_SYNCHRONOUS: 'full' })).toThrow(
      /ORACLEKIT_DB_SYNCHRONOUS = "full" is not known/,
    );
  });
});

describe('the database setting (ORACLEKIT_DATABASE_URL, daemon.json databaseUrl)', () => {
  it('none: SQLite at ORACLEKIT_DB; daemon.json gives a URL; the environment wins over it', () => {
    expect(resolveSettings(parseConfig({}), {}, {}).databaseUrl).toBeUndefined();
    expect(resolveSettings(parseConfig({}), {}, { ORACLEKIT_DATABASE_URL: '' }).databaseUrl).toBeUndefined();
    const file = parseConfig({ databaseUrl: 'postgres://u@db.example:5432/reg' });
    expect(resolveSettings(file, {}, {}).databaseUrl).toBe('postgres://u@db.example:5432/reg');
    expect(resolveSettings(file, {}, { ORACLEKIT_DATABASE_URL: 'postgresql://v@other/reg2' }).databaseUrl).toBe(
      'postgresql://v@other/reg2',
    );
  });
  it('refuses a bad URL, naming the setting, the value (password hidden) and what is valid', () => {
    let err: OracleKitError | undefined;
    try {
      resolveSettings(parseConfig({}), {}, { ORACLEKIT_DATABASE_URL: 'mysql://u:secret@h/db' });
    } catch (e) {
      err = e as OracleKitError;
    }
    expect(err?.code).toBe('invalid_config');
    expect(err?.message).toMatch(
      /ORACLEKIT_DATABASE_URL = "mysql:\/\/u:\*\*\*@h\/db" is not a PostgreSQL URL: the scheme/,
    );
    expect(() => resolveSettings(parseConfig({}), {}, { ORACLEKIT_DATABASE_URL: 'postgres://u:secret@h/' })).toThrow(
      /ORACLEKIT_DATABASE_URL = "postgres:\/\/u:\*\*\*@h\/" is not a PostgreSQL URL: it names no database/,
    );
    expect(() => parseConfig({ databaseUrl: '/var/lib/registry.db' })).toThrow(
      /databaseUrl = "\/var\/lib\/registry.db" is invalid: not a PostgreSQL URL/,
    );
    expect(() => parseConfig({ databaseUrl: 5 })).toThrow(/databaseUrl/);
    expect(() => parseConfig({ databaseUrl: 'postgresql://u:pw@h' })).toThrow(
      /databaseUrl = "postgresql:\/\/u:\*\*\*@h" is invalid: not a PostgreSQL URL: it names no database/,
    );
  });
});

describe('the shared rate limit setting (ORACLEKIT_REDIS_URL, daemon.json redisUrl)', () => {
  it('none: each daemon counts alone; daemon.json gives a URL; the environment wins over it and reaches the config', () => {
    expect(resolveSettings(parseConfig({}), {}, {}).redisUrl).toBeUndefined();
    expect(resolveSettings(parseConfig({}), {}, { ORACLEKIT_REDIS_URL: '' }).config.redisUrl).toBeUndefined();
    const file = parseConfig({ redisUrl: 'redis://cache.internal:6379' });
    expect(file.redisUrl).toBe('redis://cache.internal:6379');
    expect(resolveSettings(file, {}, {}).redisUrl).toBe('redis://cache.internal:6379');
    const env = resolveSettings(file, {}, { ORACLEKIT_REDIS_URL: 'rediss://:pw@other:6380/2' });
    expect([env.redisUrl, env.config.redisUrl]).toEqual(['rediss://:pw@other:6380/2', 'rediss://:pw@other:6380/2']);
  });
  it('refuses a bad URL with invalid_config, naming the setting, the value (password hidden) and what is valid', () => {
    let err: OracleKitError | undefined;
    try {
      resolveSettings(parseConfig({}), {}, { ORACLEKIT_REDIS_URL: 'http://u:secret@cache:6379' });
    } catch (e) {
      err = e as OracleKitError;
    }
    expect(err).toMatchObject({
      code: 'invalid_config',
      field: 'ORACLEKIT_REDIS_URL',
      value: 'http://u:***@cache:6379',
      valid: expect.stringContaining('redis://'),
    });
    expect(err?.message).toMatch(
      /ORACLEKIT_REDIS_URL = "http:\/\/u:\*\*\*@cache:6379" is not a Redis URL: the scheme must be redis:\/\/ or rediss:\/\//,
    );
    expect(err?.message).not.toContain('secret');
    expect(() =>
      resolveSettings(parseConfig({}), {}, { ORACLEKIT_REDIS_URL: 'redis://:secret@cache:6379/queue' }),
    ).toThrow(
      /ORACLEKIT_REDIS_URL = "redis:\/\/:\*\*\*@cache:6379\/queue" is not a Redis URL: the path must be a database number/,
    );
    expect(() => parseConfig({ redisUrl: 'cache:6379' })).toThrow(
      /redisUrl = "cache:6379" is invalid: not a Redis URL: the scheme/,
    );
    expect(() => parseConfig({ redisUrl: 6379 })).toThrow(/redisUrl/);
    let fileErr: OracleKitError | undefined;
    try {
      parseConfig({ redisUrl: 'redis://u:secret@' });
    } catch (e) {
      fileErr = e as OracleKitError;
    }
    expect(fileErr).toMatchObject({ code: 'invalid_config', field: 'redisUrl', value: 'redis://u:***@' });
    expect(fileErr?.message).not.toContain('secret');
  });
});
