/** The daemon commands' printers. */
import { describe, expect, it } from 'vitest';
import { formatDaemonStatus, formatStarted } from '../../../../src/cli/daemon/print.ts';
import type { DaemonStatus } from '../../../../src/cli/daemon/control.ts';

const base: DaemonStatus = {
  running: true,
  healthy: true,
  stale: false,
  pid: 42,
  url: 'http://127.0.0.1:4781',
  port: 4781,
  version: '0.1.0',
  uptimeSeconds: 7,
  discoveryFile: '/s/daemon.json',
  logFile: '/s/daemon.log',
};

describe('daemon printers', () => {
  it('running, with its oracle and plugins', () => {
    const s: DaemonStatus = {
      ...base,
      oracle: {
        did: 'did:key:z6Mk1',
        url: 'http://127.0.0.1:4781/oracle',
        name: 'default',
        model: null,
        signingKeyLoaded: true,
        plugins: {
          loaded: ['weather'],
          pending: [],
          failed: [{ plugin: 'slack', reason: 'no token' }],
          excluded: [{ plugin: 'matrix', reason: 'off' }],
        },
      },
    };
    expect(formatDaemonStatus(s).split('\n')).toEqual([
      'running: pid 42 at http://127.0.0.1:4781, version 0.1.0, healthy, up 7s',
      'oracle: default did:key:z6Mk1 at http://127.0.0.1:4781/oracle, model none (set LLM_BASE_URL, LLM_PROVIDER_API_KEY, LLM_MODEL and restart)',
      'plugins: loaded weather; failed slack (no token); excluded 1',
    ]);
  });

  it('no oracle, not answering, not running, stale', () => {
    expect(formatDaemonStatus({ ...base, healthy: false, oracle: null })).toBe(
      'running: pid 42 at http://127.0.0.1:4781, version 0.1.0, NOT answering /health\noracle: none (disabled in daemon.json, or it failed to boot: see `oraclekit daemon logs`)',
    );
    expect(formatDaemonStatus({ ...base, running: false })).toBe('not running');
    expect(formatDaemonStatus({ ...base, running: false, stale: true })).toBe(
      'not running (removed a stale discovery file of pid 42)',
    );
  });

  it('started, already running, restarted', () => {
    expect(formatStarted(base, 'started')).toBe(
      'started: pid 42 at http://127.0.0.1:4781 (version 0.1.0); logs /s/daemon.log',
    );
    expect(formatStarted(base, 'already running')).toBe(
      'already running: pid 42 at http://127.0.0.1:4781 (version 0.1.0); logs /s/daemon.log',
    );
    expect(formatStarted(base, 'restarted')).toBe('restarted: pid 42 at http://127.0.0.1:4781 (version 0.1.0)');
  });
});
