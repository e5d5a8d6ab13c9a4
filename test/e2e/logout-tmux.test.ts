/**
 * `oraclekit logout` on a terminal (tmux): it names the DID and what its key
 * controls and asks (default no); declining keeps the identity untouched,
 * accepting removes it and keeps the file as a 0600 backup.
 */
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.ts';
import { Tmux, hasTmux } from '../helpers/tmux.ts';

const ROOT = join(import.meta.dirname, '../..');
const BIN = join(ROOT, 'bin/run.js');
const home = mkdtempSync(join(tmpdir(), 'okit-logout-'));
const env = { ORACLEKIT_HOME: home, ORACLEKIT_MNEMONIC: '', CI: '' };
const idFile = join(home, 'config/identity.json');
const first = new Tmux(`okit-logout-${process.pid}`, 'declined');
const second = new Tmux(`okit-logout2-${process.pid}`, 'accepted');
let tmux = first;

async function until(pred: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (pred()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting for ${what}; screen:\n${tmux.screen()}`);
}

afterAll(() => {
  if (hasTmux) for (const t of [first, second]) if (t.alive()) t.kill();
  rmSync(home, { recursive: true, force: true });
});

describe.skipIf(!hasTmux)('oraclekit logout on a terminal', () => {
  it('says which DID, asks; no keeps it, yes removes it and keeps a 0600 backup', async () => {
    const made = await runCli(['login', '--auth', 'mnemonic', '--generate', '--json'], { env });
    expect(made.code, made.stderr).toBe(0);
    const did = JSON.parse(made.stdout).did as string;
    const saved = readFileSync(idFile, 'utf8');
    // a person at a terminal: CI unset (the suite itself may run with CI=true, under which nothing is asked)
    const cmd = `env -u CI ORACLEKIT_HOME='${home}' '${process.execPath}' '${BIN}' logout; echo "exit=$?"; sleep 30`;

    tmux.start(cmd, { cwd: ROOT, width: 250, height: 30 });
    await until(() => tmux.screen().includes(`Sign out of ${did}?`), 'the question');
    expect(tmux.screen()).toContain('controls the domains and API keys bound to it');
    tmux.line('n');
    await until(() => tmux.screen().includes('exit='), 'the end');
    expect(tmux.screen()).toContain(`kept the saved identity ${did}`);
    expect(tmux.screen()).toContain('exit=4');
    expect(readFileSync(idFile, 'utf8')).toBe(saved);
    tmux = second;
    tmux.start(cmd, { cwd: ROOT, width: 250, height: 30 });
    await until(() => tmux.screen().includes(`Sign out of ${did}?`), 'the question');
    tmux.line('y');
    await until(() => tmux.screen().includes('exit='), 'the end');
    expect(tmux.screen()).toContain('exit=0');
    expect(tmux.screen()).toContain(`Signed out (${did})`);
    expect(existsSync(idFile)).toBe(false);
    const backups = readdirSync(join(home, 'config')).filter((f) => f.endsWith('.bak'));
    expect(backups).toHaveLength(1);
    const backup = join(home, 'config', backups[0]!);
    expect(readFileSync(backup, 'utf8')).toBe(saved);
    expect(statSync(backup).mode & 0o777).toBe(0o600);
  }, 60_000);
});
