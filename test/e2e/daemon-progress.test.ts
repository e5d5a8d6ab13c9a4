/**
 * Starting the daemon takes seconds, and says so: on a terminal (tmux, 80x24)
 * a spinner with the elapsed time while `daemon restart` or an auto-start
 * runs, then the result; in a pipe one plain line on stderr; under --json
 * nothing but the JSON. And a daemon started later by another command keeps
 * the model settings it was last started with.
 */
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, ROOT, runCli } from '../helpers/cli.ts';
import { Tmux, hasTmux } from '../helpers/tmux.ts';
import { tempHome } from '../unit/daemon/harness.ts';

const MODEL_VARS = ['LLM_BASE_URL', 'LLM_PROVIDER_API_KEY', 'LLM_MODEL', 'LLM_STALL_TIMEOUT_MS'];
for (const k of MODEL_VARS) delete process.env[k]; // the runner's own, if any, would be inherited by every child

const t = tempHome();
const env = t.env;
const json = (s: string) => JSON.parse(s) as Record<string, unknown>;
const tmux = new Tmux(`okit-progress-${process.pid}`, 'progress');
const model = async (e: Record<string, string> = env) => {
  const r = await runCli(['daemon', 'status', '--json'], { env: e });
  return (json(r.stdout).oracle as { model: string | null } | null)?.model;
};

beforeAll(async () => {
  await runCli(['daemon', 'stop'], { env });
});
afterAll(async () => {
  if (hasTmux && tmux.alive()) tmux.kill();
  await runCli(['daemon', 'stop', '--grace', '1'], { env });
  t.cleanup();
});

describe('an auto-started daemon keeps its model settings', () => {
  it('the settings of the last start come back after a stop and an auto-start; a set variable wins', async () => {
    const withModel = {
      ...env,
      LLM_BASE_URL: 'http://127.0.0.1:9/v1',
      LLM_PROVIDER_API_KEY: 'sk-kept-secret',
      LLM_MODEL: 'kept-model',
    };
    const s = await runCli(['daemon', 'start', '--json'], { env: withModel });
    expect(s.code, s.stderr).toBe(0);
    expect(await model()).toBe('kept-model');
    const record = join(t.home, 'state/daemon-model.json');
    expect(statSync(record).mode & 0o777).toBe(0o600);

    await runCli(['daemon', 'stop'], { env });
    // a command of a shell without the model variables starts it again (it then wants an API key: not the point)
    await runCli(['domain', 'list', '--json'], { env: { ...env, ORACLEKIT_AUTOSTART: '1' } });
    expect(await model()).toBe('kept-model');

    // a variable the starting command sets wins (and is kept from then on); the others stay
    const r = await runCli(['daemon', 'restart', '--json'], { env: { ...env, LLM_MODEL: 'other-model' } });
    expect(r.code, r.stderr).toBe(0);
    expect(await model()).toBe('other-model');
    expect(json(readFileSync(record, 'utf8')).env).toEqual({
      LLM_BASE_URL: 'http://127.0.0.1:9/v1',
      LLM_PROVIDER_API_KEY: 'sk-kept-secret',
      LLM_MODEL: 'other-model',
    });
    // an empty value clears one
    await runCli(['daemon', 'restart', '--json'], { env: { ...env, LLM_MODEL: '' } });
    expect(await model()).toBe(null);
    expect(readFileSync(join(t.home, 'state/daemon.log'), 'utf8')).not.toContain('sk-kept-secret');
  }, 60_000);
});

describe('slow daemon steps say so', () => {
  it('in a pipe: one plain line on stderr; under --json nothing but the JSON', async () => {
    const r = await runCli(['daemon', 'restart'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('restarting the local daemon…\n');
    expect(r.stdout).toMatch(/^restarted: pid \d+/);
    await runCli(['daemon', 'stop'], { env });
    // an auto-start, then the command's own answer (here: it wants an API key)
    const auto = await runCli(['domain', 'list'], { env: { ...env, ORACLEKIT_AUTOSTART: '1' } });
    expect(auto.stderr).toMatch(
      /^starting the local daemon…\nstarted the local daemon: pid \d+ at http:\/\/127\.0\.0\.1:\d+ \(\d+\.\d s\)\nError /,
    );
    const j = await runCli(['daemon', 'restart', '--json'], { env });
    expect(j.stderr).toBe('');
    expect(json(j.stdout)).toMatchObject({ running: true, healthy: true });
  }, 60_000);

  it.skipIf(!hasTmux)(
    'on an 80x24 terminal: a spinner with the seconds while restarting and auto-starting',
    async () => {
      const vars = Object.entries({ ...env, ORACLEKIT_AUTOSTART: '1' })
        .map(([k, v]) => `${k}='${v}'`)
        .join(' ');
      const cli = `env -u CI ${vars} '${process.execPath}' '${BIN}'`;
      const cmd = `${cli} daemon restart; echo "exit=$?"; ${cli} daemon stop >/dev/null; ${cli} domain list; echo "exit=$?"; sleep 30`;
      tmux.start(cmd, { cwd: ROOT, width: 80, height: 24 });
      await tmux.until((s) => /[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] restarting the local daemon… \d+\.\d s/.test(s), 'the restart spinner');
      let screen = await tmux.until((s) => s.includes('exit='), 'the restart to end');
      expect(screen).toMatch(/restarted: pid \d+/);
      expect(screen).not.toContain('restarting the local daemon'); // the spinner line is cleared
      await tmux.until((s) => /[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] starting the local daemon… \d+\.\d s/.test(s), 'the auto-start spinner');
      screen = await tmux.until((s) => (s.match(/exit=/g) ?? []).length === 2, 'the auto-start to end');
      expect(screen).toMatch(/started the local daemon: pid \d+ at http:\/\/127\.0\.0\.1:\d+ \(\d+\.\d s\)/);
    },
    60_000,
  );
});
