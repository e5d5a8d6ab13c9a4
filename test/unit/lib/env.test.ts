import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { autoStartAllowed, shownValue, toolEnv } from '../../../src/lib/env.ts';
import { configDir, configPath, dbPath, stateDir } from '../../../src/lib/paths.ts';
import { resolveSettings, loadConfig } from '../../../src/daemon/config.ts';

describe('the ORACLEKIT_ environment', () => {
  it('gives each variable under its field and leaves blank ones out', () => {
    expect(
      toolEnv({
        ORACLEKIT_HOME: '/h',
        ORACLEKIT_API_KEY: '  ',
        ORACLEKIT_REGISTRY: '',
        ORACLEKIT_DAEMON_PORT: '5000',
        ORACLE_DB_PATH: '/not/ours',
      }),
    ).toEqual({ home: '/h', daemonPort: '5000' });
  });

  it('a blank ORACLEKIT_HOME, ORACLEKIT_DB or ORACLEKIT_DAEMON_CONFIG falls back to the XDG directories', () => {
    const env = {
      ORACLEKIT_HOME: ' ',
      ORACLEKIT_DB: '',
      ORACLEKIT_DAEMON_CONFIG: ' ',
      XDG_STATE_HOME: '/s',
      XDG_DATA_HOME: '/d',
      XDG_CONFIG_HOME: '/c',
    };
    expect(stateDir(env)).toBe(join('/s', 'oraclekit'));
    expect(configDir(env)).toBe(join('/c', 'oraclekit'));
    expect(dbPath(env)).toBe(join('/d', 'oraclekit', 'registry.db'));
    expect(configPath(env)).toBe(join('/c', 'oraclekit', 'daemon.json'));
    expect(dbPath({ ...env, ORACLEKIT_DB: '/x/r.db' })).toBe('/x/r.db');
  });

  it('auto-start: on unless ORACLEKIT_AUTOSTART=0; under CI only with ORACLEKIT_AUTOSTART=1', () => {
    expect(autoStartAllowed({})).toBe(true);
    expect(autoStartAllowed({ ORACLEKIT_AUTOSTART: '0' })).toBe(false);
    expect(autoStartAllowed({ CI: 'true' })).toBe(false);
    expect(autoStartAllowed({ CI: '1', ORACLEKIT_AUTOSTART: '1' })).toBe(true);
    expect(autoStartAllowed({ CI: 'true', ORACLEKIT_AUTOSTART: ' ' })).toBe(false);
  });

  it('the daemon treats a blank ORACLEKIT_DATABASE_URL, ORACLEKIT_REDIS_URL or port as unset', () => {
    const config = loadConfig('/nonexistent/daemon.json');
    const s = resolveSettings(
      config,
      {},
      {
        ORACLEKIT_DATABASE_URL: ' ',
        ORACLEKIT_REDIS_URL: '',
        ORACLEKIT_DAEMON_PORT: '',
        ORACLEKIT_DB_SYNCHRONOUS: ' ',
      },
    );
    expect(s).toMatchObject({ port: config.port, databaseUrl: undefined, redisUrl: undefined, dbSynchronous: 'async' });
  });
});

describe('a variable shown in an error', () => {
  it('is quoted, without a URL’s credentials or query, and hidden when its name says it is a secret', () => {
    expect(shownValue('CALLS_AGENT_AUDIO_FRAME_MS', '15')).toBe('"15"');
    expect(shownValue('MEMORY_MCP_URL', 'https://bob:hunter2@memory.local/mcp?token=abc')).toBe(
      '"https://…@memory.local/mcp?…"',
    );
    for (const name of ['CALLS_STT_API_KEY', 'LIVEKIT_API_SECRET', 'MEMORY_MCP_TOKEN', 'DB_PASSWORD', 'MNEMONIC'])
      expect(shownValue(name, 'sk-live-123')).toBe('(hidden)');
    // a word of the name, not a part of one: ORACLE_MAX_TOKENS is a number
    expect(shownValue('ORACLE_MAX_TOKENS', 'many')).toBe('"many"');
  });
});
