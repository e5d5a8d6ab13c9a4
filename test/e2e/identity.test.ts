/**
 * login / whoami / logout through the real CLI: a mnemonic from a file, an
 * environment variable or generated; the identity file the chat reads
 * ({did, mnemonic, createdAt}, 0600); QR sign-in with the test playing the
 * wallet (it reads the link the CLI prints, signs the challenge with an
 * Ed25519 key and posts it to the callback).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BIN, ROOT, runCli } from '../helpers/cli.ts';
import { testWallet } from '../helpers/wallet.ts';
import { didFromMnemonic, generateMnemonic } from '../../src/lib/keys/keys.ts';
import { parseSignInLink } from '../../src/cli/identity/qr.ts';

const home = mkdtempSync(join(tmpdir(), 'ok-identity-'));
const env = { ORACLEKIT_HOME: home, ORACLEKIT_MNEMONIC: '', CI: '' };
const cli = (args: string[], extra: Record<string, string> = {}) => runCli(args, { env: { ...env, ...extra } });
const idFile = join(home, 'config/identity.json');
afterAll(() => rmSync(home, { recursive: true, force: true }));

describe('login with a mnemonic', () => {
  const mnemonic = generateMnemonic(128);
  const did = didFromMnemonic(mnemonic);

  it('from a file: saves the chat’s identity file, 0600, and never prints the words', async () => {
    const f = join(home, 'words.txt');
    writeFileSync(f, `  ${mnemonic.toUpperCase()}\n`);
    const r = await cli(['login', '--auth', 'mnemonic', '--mnemonic-file', f, '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({
      did,
      keyDid: did,
      method: 'mnemonic',
      source: f,
      wallet: null,
      path: idFile,
    });
    expect(r.stdout + r.stderr).not.toContain(mnemonic.split(' ')[3]!);
    const saved = JSON.parse(readFileSync(idFile, 'utf8'));
    expect(saved).toEqual({ did, mnemonic, createdAt: expect.any(String) });
    expect(statSync(idFile).mode & 0o777).toBe(0o600);
    expect(statSync(join(home, 'config')).mode & 0o777).toBe(0o700);
  });

  it('whoami shows it', async () => {
    const r = await cli(['whoami', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ did, method: 'mnemonic', wallet: null });
    const text = await cli(['whoami']);
    expect(text.stdout.split('\n')[0]).toBe(did);
  });

  it('from an environment variable (implies --auth mnemonic; --force replaces the saved one)', async () => {
    const other = generateMnemonic();
    const r = await cli(['login', '--force', '--json'], { ORACLEKIT_MNEMONIC: other });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ did: didFromMnemonic(other), source: '$ORACLEKIT_MNEMONIC' });
  });

  it('refuses an invalid mnemonic (exit 3) and keeps the saved identity', async () => {
    const before = readFileSync(idFile, 'utf8');
    const r = await cli(['login', '--auth', 'mnemonic', '--json'], {
      ORACLEKIT_MNEMONIC:
        'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon',
    });
    expect(r.code).toBe(3);
    expect(JSON.parse(r.stderr)).toMatchObject({ code: 'invalid_mnemonic', field: 'mnemonic-env' });
    expect(readFileSync(idFile, 'utf8')).toBe(before);
  });

  it('without a terminal and no source, the missing answer names its flag', async () => {
    const r = await cli(['login', '--json']);
    expect(r.code).toBe(3);
    expect(JSON.parse(r.stderr)).toMatchObject({ code: 'missing_answer', field: 'auth' });
    const m = await cli(['login', '--auth', 'mnemonic', '--json']);
    expect(JSON.parse(m.stderr)).toMatchObject({ code: 'missing_mnemonic', field: 'mnemonic-file' });
  });

  it('--generate makes a new identity without printing it (no terminal)', async () => {
    const r = await cli(['login', '--auth', 'mnemonic', '--generate', '--force', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const saved = JSON.parse(readFileSync(idFile, 'utf8'));
    expect(JSON.parse(r.stdout).did).toBe(saved.did);
    expect(r.stdout).not.toContain(saved.mnemonic.split(' ')[0] + ' ' + saved.mnemonic.split(' ')[1]);
    expect(r.stderr).not.toContain(saved.mnemonic.split(' ')[0] + ' ' + saved.mnemonic.split(' ')[1]);
  });

  it('logout without a terminal needs --force; then it forgets the identity and keeps a backup; whoami says to log in (exit 7)', async () => {
    const saved = readFileSync(idFile, 'utf8');
    const refused = await cli(['logout', '--json']);
    expect(refused.code).toBe(4);
    expect(JSON.parse(refused.stderr)).toMatchObject({ code: 'logout_unconfirmed', field: 'force' });
    expect(readFileSync(idFile, 'utf8')).toBe(saved);
    const r = await cli(['logout', '--force', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out).toMatchObject({ loggedOut: true, backup: expect.stringMatching(/identity\.json\..+\.bak$/) });
    expect(existsSync(idFile)).toBe(false);
    expect(readFileSync(out.backup, 'utf8')).toBe(saved);
    expect(statSync(out.backup).mode & 0o777).toBe(0o600);
    const w = await cli(['whoami', '--json']);
    expect(w.code).toBe(7);
    expect(JSON.parse(w.stderr)).toMatchObject({ code: 'not_logged_in' });
    expect(JSON.parse((await cli(['logout', '--json'])).stdout)).toMatchObject({ loggedOut: false });
  });
});

describe('QR sign-in', () => {
  it('shows a QR code and the link; the wallet signs the challenge and its DID becomes the identity', async () => {
    const wallet = testWallet();
    const walletDid = wallet.did;
    const child = spawn(process.execPath, [BIN, 'login', '--auth', 'qr', '--timeout', '60', '--json'], {
      cwd: ROOT,
      env: { ...process.env, NO_COLOR: '1', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    const link = await new Promise<string>((ok, ko) => {
      child.stderr.setEncoding('utf8').on('data', (d: string) => {
        stderr += d;
        const m = /oraclekit:signin\?\S+/.exec(stderr);
        if (m) ok(m[0]);
      });
      child.on('close', () => ko(new Error(`login exited early: ${stderr}`)));
    });
    expect(stderr).toMatch(/[▀▄█]/); // the QR code itself
    const req = parseSignInLink(link);
    const res = await wallet.approve(req);
    expect(res.status).toBe(200);
    const code = await new Promise<number>((ok) => child.on('close', (c) => ok(c ?? -1)));
    expect(code, stderr).toBe(0);
    const out = JSON.parse(stdout);
    expect(out).toMatchObject({ did: walletDid, method: 'qr', wallet: walletDid });
    // the local key the wallet vouched for stays usable by the chat
    const saved = JSON.parse(readFileSync(idFile, 'utf8'));
    expect(saved).toMatchObject({ did: req.aud, wallet: { did: walletDid } });
    expect(didFromMnemonic(saved.mnemonic)).toBe(req.aud);
    expect(JSON.parse((await cli(['whoami', '--json'])).stdout)).toMatchObject({
      did: walletDid,
      keyDid: req.aud,
      method: 'qr',
    });
  });
});
