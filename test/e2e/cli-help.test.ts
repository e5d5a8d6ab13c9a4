/**
 * Finding your way in the CLI, through the real built CLI:
 * `oraclekit --help` lists chat; a mistyped command or flag gets "did you
 * mean" with the command written with spaces, as a usage error (exit 2) in
 * the `Error [code] message` form (or the JSON body with --json); and
 * `--version` tells the same runtime version the runtime prints at boot and
 * reports on /health.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, runCli } from '../helpers/cli.ts';
import { startHarness, type Harness } from '../helpers/runtime-harness.ts';

const home = mkdtempSync(join(tmpdir(), 'oraclekit-help-'));
const env = { CI: '1', ORACLEKIT_HOME: home };
afterAll(() => rmSync(home, { recursive: true, force: true }));
const pkgVersion = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;

describe('oraclekit --help', () => {
  it('lists the chat command (and says --chat)', async () => {
    const r = await runCli(['--help'], { env });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^ {2}chat +Chat with an oracle \(also `oraclekit --chat`\)\./m);
  });
});

describe('did you mean', () => {
  it('a mistyped command: exit 2, the nearest command with spaces', async () => {
    const r = await runCli(['sampel', 'calc', '-N', '8000'], { env });
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toBe(
      'Error [unknown_command] "sampel calc" is not an oraclekit command; did you mean "sample calc"? (`oraclekit sample calc --help`)',
    );
    expect(r.stderr).not.toContain('sampel:calc');
    const j = await runCli(['sampel', 'calc', '--json'], { env });
    expect(j.code).toBe(2);
    expect(JSON.parse(j.stderr)).toEqual({
      statusCode: 400,
      code: 'unknown_command',
      message:
        '"sampel calc" is not an oraclekit command; did you mean "sample calc"? (`oraclekit sample calc --help`)',
      field: 'command',
      details: { value: 'sampel calc', valid: 'sample calc' },
    });
    const far = await runCli(['frobnicate'], { env });
    expect(far.code).toBe(2);
    expect(far.stderr.trim()).toBe(
      'Error [unknown_command] "frobnicate" is not an oraclekit command; `oraclekit --help` lists the commands',
    );
    const chat = await runCli(['--chta'], { env });
    expect(chat.code).toBe(2);
    expect(chat.stderr).toContain('did you mean "--chat"?');
  });

  it('a mistyped flag: exit 2 (usage), the nearest flag', async () => {
    const r = await runCli(['sample', 'calc', '--dropuot', '0.1', '-N', '8000', '--mean', '3.1', '--sd', '1.7'], {
      env,
    });
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toBe('Error [usage] unknown flag --dropuot; did you mean --dropout?');
    expect(r.stdout).toBe('');
    const j = await runCli(
      ['sample', 'calc', '--dropuot=0.1', '-N', '8000', '--mean', '3.1', '--sd', '1.7', '--json'],
      { env },
    );
    expect(j.code).toBe(2);
    expect(JSON.parse(j.stderr)).toMatchObject({
      statusCode: 400,
      code: 'usage',
      field: '--dropuot',
      details: { value: '--dropuot', valid: '--dropout' },
    });
    // a flag far from every flag keeps oclif's words
    const far = await runCli(['sample', 'calc', '--zzz', '1', '-N', '8000', '--mean', '3.1', '--sd', '1.7'], { env });
    expect(far.code).toBe(2);
    expect(far.stderr.trim()).toBe('Error [usage] Nonexistent flag: --zzz');
  });
});

describe('--version and the runtime tell one story', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => {
    await h?.close();
  });

  it('oraclekit/<package version> … (runtime v<the version the runtime prints at boot and on /health>, protocol v…)', async () => {
    const r = await runCli(['--version'], { env });
    expect(r.code).toBe(0);
    const m = /^oraclekit\/(\S+) \S+ node-v\d+\.\d+\.\d+ \(runtime v(\d+\.\d+\.\d+), protocol v(\d+\.\d+\.\d+)\)$/.exec(
      r.stdout.trim(),
    );
    expect(m, r.stdout).not.toBeNull();
    const [, pkg, runtime] = m!;
    expect(pkg).toBe(pkgVersion);
    expect(h.lines[0]).toBe(`runtime v${runtime}`);
    expect(((await (await fetch(`${h.url}/health`)).json()) as { version: string }).version).toBe(runtime);
    // the VERSION section of the help is the same line
    const help = await runCli(['--help'], { env });
    expect(help.stdout).toContain(r.stdout.trim());
  });
});
