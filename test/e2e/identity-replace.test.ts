/**
 * `login` never replaces a saved identity silently. Through the
 * real CLI: without a terminal and without --force it refuses with
 * identity_exists (exit 4) and names flags that exist; --force keeps the old
 * file as a timestamped 0600 backup; a generated mnemonic is shown once on a
 * terminal and, without one, the command says where it is. Under tmux (a
 * real terminal): the offline-mnemonic question offers to generate one, the
 * replacement asks first, and declining keeps the saved identity.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BIN, ROOT, runCli } from '../helpers/cli.ts';
import { hasTmux, Tmux } from '../helpers/tmux.ts';
import { didFromMnemonic, generateMnemonic } from '../../src/lib/keys/keys.ts';

const homes: string[] = [];
const SOCK = `oraclekit-identity-test-${process.pid}`;
afterAll(() => {
  if (hasTmux) new Tmux(SOCK, 'x').kill();
  for (const h of homes) rmSync(h, { recursive: true, force: true });
});

function home(): {
  dir: string;
  idFile: string;
  cli: (args: string[]) => ReturnType<typeof runCli>;
  backups: () => string[];
} {
  const dir = mkdtempSync(join(tmpdir(), 'ok-identity-replace-'));
  homes.push(dir);
  const env = { ORACLEKIT_HOME: dir, ORACLEKIT_MNEMONIC: '', CI: '' };
  return {
    dir,
    idFile: join(dir, 'config/identity.json'),
    cli: (args) => runCli(args, { env }),
    backups: () => readdirSync(join(dir, 'config')).filter((f) => /^identity\.json\..+\.bak$/.test(f)),
  };
}

/** Every `--flag` a message suggests is a flag of `login` (its --help lists it). */
async function flagsExist(message: string): Promise<string[]> {
  const help = (await runCli(['login', '--help'])).stdout;
  const flags = [...new Set([...message.matchAll(/--[a-z][a-z-]*/g)].map((m) => m[0]))];
  return flags.filter((f) => !new RegExp(`${f}\\b`).test(help));
}

describe('login without a terminal', () => {
  it('a first --generate says where the new mnemonic is saved and never prints it', async () => {
    const h = home();
    const r = await h.cli(['login', '--auth', 'mnemonic', '--generate', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const saved = JSON.parse(readFileSync(h.idFile, 'utf8'));
    expect(r.stderr).toContain(
      `A new mnemonic was generated for ${saved.did}; it is not shown here (no terminal). It is saved in ${h.idFile} (mode 0600)`,
    );
    expect(r.stdout + r.stderr).not.toContain(saved.mnemonic);
  });

  it('refuses to replace the saved identity: identity_exists, exit 4, flags that exist; the file is untouched', async () => {
    const h = home();
    expect((await h.cli(['login', '--auth', 'mnemonic', '--generate'])).code).toBe(0);
    const before = readFileSync(h.idFile, 'utf8');
    const old = JSON.parse(before).did as string;
    const words = join(h.dir, 'words.txt');
    writeFileSync(words, generateMnemonic() + '\n');
    for (const args of [['--generate'], ['--mnemonic-file', words]]) {
      const r = await h.cli(['login', '--auth', 'mnemonic', ...args, '--json']);
      expect(r.code, r.stderr).toBe(4);
      const e = JSON.parse(r.stderr);
      expect(e).toMatchObject({
        statusCode: 409,
        code: 'identity_exists',
        field: 'force',
        details: { saved: old, path: h.idFile },
      });
      expect(e.message).toContain(`already holds the identity ${old}`);
      expect(e.message).toContain('--force');
      expect(await flagsExist(e.message)).toEqual([]);
    }
    const text = await h.cli(['login', '--auth', 'mnemonic', '--generate']);
    expect(text.code).toBe(4);
    expect(text.stderr).toContain('[identity_exists]');
    expect(readFileSync(h.idFile, 'utf8')).toBe(before);
    expect(h.backups()).toEqual([]);
  });

  it('the same key again is no replacement: no question, no backup', async () => {
    const h = home();
    expect((await h.cli(['login', '--auth', 'mnemonic', '--generate'])).code).toBe(0);
    const saved = JSON.parse(readFileSync(h.idFile, 'utf8'));
    const r = await runCli(['login', '--json'], {
      env: { ORACLEKIT_HOME: h.dir, ORACLEKIT_MNEMONIC: saved.mnemonic, CI: '' },
    });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ did: saved.did });
    expect(h.backups()).toEqual([]);
  });

  it('--force replaces it and keeps the old file as a timestamped 0600 backup', async () => {
    const h = home();
    expect((await h.cli(['login', '--auth', 'mnemonic', '--generate'])).code).toBe(0);
    const before = readFileSync(h.idFile, 'utf8');
    const old = JSON.parse(before).did as string;
    const r = await h.cli(['login', '--auth', 'mnemonic', '--generate', '--force', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    const [bak] = h.backups();
    expect(bak).toMatch(/^identity\.json\.\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-\d{3}Z\.bak$/);
    expect(out.replaced).toEqual({ did: old, backup: join(h.dir, 'config', bak!) });
    expect(out.did).not.toBe(old);
    expect(readFileSync(join(h.dir, 'config', bak!), 'utf8')).toBe(before);
    expect(statSync(join(h.dir, 'config', bak!)).mode & 0o777).toBe(0o600);
    expect(statSync(h.idFile).mode & 0o777).toBe(0o600);
    // the kept mnemonic still gives the old DID
    expect(didFromMnemonic(JSON.parse(before).mnemonic)).toBe(old);
    const text = await h.cli(['login', '--auth', 'mnemonic', '--generate', '--force']);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(
      /the previous identity did:key:z6Mk\w+ is kept in .*identity\.json\..+\.bak \(mode 0600\)/,
    );
    expect(h.backups()).toHaveLength(2);
  });

  it('no --auth and no source: the error names flags that exist (login has no --yes)', async () => {
    const h = home();
    const r = await h.cli(['login', '--json']);
    expect(r.code).toBe(3);
    const e = JSON.parse(r.stderr);
    expect(e).toMatchObject({ code: 'missing_answer', field: 'auth' });
    expect(e.message).not.toContain('--yes');
    expect(await flagsExist(e.message)).toEqual([]);
  });
});

describe.skipIf(!hasTmux)('login on a terminal (tmux)', () => {
  let n = 0;
  function session(dir: string, args: string): Tmux {
    const t = new Tmux(SOCK, `s${++n}`);
    t.start(
      `env -u CI -u ORACLEKIT_MNEMONIC ORACLEKIT_HOME='${dir}' NO_COLOR=1 '${process.execPath}' '${BIN}' ${args}; echo "EXIT=$?"; sleep 600`,
      { cwd: ROOT, width: 220, height: 60 },
    );
    return t;
  }

  it('offline mnemonic offers to generate one; replacing asks first; the phrase is shown once; the old file is kept', async () => {
    const h = home();
    expect((await h.cli(['login', '--auth', 'mnemonic', '--generate'])).code).toBe(0);
    const before = readFileSync(h.idFile, 'utf8');
    const old = JSON.parse(before).did as string;
    const t = session(h.dir, 'login');
    await t.until((s) => s.includes('? How do you sign in?'), 'the sign-in question');
    t.keys('Enter'); // the default: offline mnemonic
    await t.until(
      (s) => s.includes('? Your offline mnemonic') && s.includes('Generate a new one'),
      'the generate offer',
    );
    t.keys('Down');
    t.keys('Enter');
    await t.until((s) => s.includes(`? Replace the saved identity ${old} with`), 'the confirmation');
    t.line('y');
    const screen = await t.until((s) => s.includes('EXIT='), 'the end');
    expect(screen).toContain('EXIT=0');
    const saved = JSON.parse(readFileSync(h.idFile, 'utf8'));
    expect(saved.did).not.toBe(old);
    expect(screen).toContain('it is shown only this once:');
    // the words, once, on one line of their own
    expect(screen.split('\n').filter((l) => l.trim() === saved.mnemonic)).toHaveLength(1);
    expect(screen).toContain(`Signed in as ${saved.did}`);
    const [bak] = h.backups();
    expect(readFileSync(join(h.dir, 'config', bak!), 'utf8')).toBe(before);
    expect(statSync(join(h.dir, 'config', bak!)).mode & 0o777).toBe(0o600);
  });

  it('declining the replacement keeps the saved identity (identity_exists, exit 4)', async () => {
    const h = home();
    expect((await h.cli(['login', '--auth', 'mnemonic', '--generate'])).code).toBe(0);
    const before = readFileSync(h.idFile, 'utf8');
    const old = JSON.parse(before).did as string;
    const t = session(h.dir, 'login --auth mnemonic --generate');
    await t.until((s) => s.includes(`? Replace the saved identity ${old} with`), 'the confirmation');
    t.line('n');
    const screen = await t.until((s) => s.includes('EXIT='), 'the end');
    expect(screen).toContain('EXIT=4');
    expect(screen).toContain(`kept the saved identity ${old}; nothing was changed`);
    expect(screen).not.toContain('shown only this once');
    expect(readFileSync(h.idFile, 'utf8')).toBe(before);
    expect(h.backups()).toEqual([]);
  });
});
