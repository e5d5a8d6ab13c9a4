/**
 * `oraclekit login` on an 80x24 terminal (tmux, CI unset as at a person's
 * terminal): it first says who you are signed in as; the QR code of the
 * sign-in request is wholly on the screen at once, with the URL, the code the
 * wallet shows and the warning that a phone cannot reach 127.0.0.1; a wallet
 * reading that URL and signing completes the sign-in. A smaller terminal gets
 * the URL and the code instead of the QR code. With a local registry running,
 * the first lines name the domains the key controls.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ed25519 } from '@noble/curves/ed25519.js';
import qrcode from 'qrcode-terminal';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, ROOT, runCli } from '../helpers/cli.ts';
import { Tmux, hasTmux } from '../helpers/tmux.ts';
import { didKeyFromPublicKey } from '../../src/lib/keys/keys.ts';

const home = mkdtempSync(join(tmpdir(), 'okit-login-'));
const env = { ORACLEKIT_HOME: home, ORACLEKIT_MNEMONIC: '', CI: '' };
const big = new Tmux(`okit-login-${process.pid}`, 'login80x24');
const small = new Tmux(`okit-login-s-${process.pid}`, 'login80x16');
const known = new Tmux(`okit-login-k-${process.pid}`, 'loginknown');
let did: string;

/** The visible screen only (no scroll-back): what a person sees at once. */
const visible = (t: Tmux) => t.run('capture-pane', '-p', '-t', t.name);
const cmd = `env -u CI ORACLEKIT_HOME='${home}' ORACLEKIT_AUTOSTART=0 '${process.execPath}' '${BIN}' login --auth qr --timeout 60; echo "exit=$?"; sleep 30`;

beforeAll(async () => {
  const made = await runCli(['login', '--auth', 'mnemonic', '--generate', '--json'], { env });
  expect(made.code, made.stderr).toBe(0);
  did = JSON.parse(made.stdout).did as string;
});
afterAll(async () => {
  if (hasTmux) for (const t of [big, small, known]) if (t.alive()) t.kill();
  await runCli(['daemon', 'stop', '--grace', '1'], { env });
  rmSync(home, { recursive: true, force: true });
});

describe.skipIf(!hasTmux)('oraclekit login on a terminal', () => {
  it('says who you are, shows the whole QR code on 80x24 with the warning, and a wallet signs in', async () => {
    big.start(cmd, { cwd: ROOT, width: 80, height: 24 });
    const shown = await big.until((s) => s.includes("waiting for the wallet's signature"), 'the QR screen', 30_000);
    // before anything else: who you are and what the key controls
    expect(shown.indexOf(`Signed in as ${did}\n`)).toBeGreaterThanOrEqual(0);
    expect(shown.indexOf(`Signed in as ${did}\n`)).toBeLessThan(shown.indexOf('Scan with your wallet'));
    expect(shown).toContain(`  key saved in ${join(home, 'config/identity.json')}`);
    expect(shown).toContain('  its key controls the registry domains and API keys bound to it;');
    const url = /or open (http:\/\/127\.0\.0\.1:\d+\/signin\/\S+) in your wallet/.exec(shown)?.[1];
    expect(url, shown).toBeDefined();
    // the whole QR code of that URL, the URL, the code and the warning are on the screen at once
    const screen = visible(big);
    const qr = await new Promise<string>((ok) => qrcode.generate(url!, { small: true }, (q: string) => ok(q)));
    expect(screen).toContain(qr.trimEnd());
    expect(screen).toContain(`or open ${url} in your wallet`);
    expect(screen).toContain('warning: the callback is on 127.0.0.1, which a phone cannot reach');
    expect(screen).toContain('--callback-host 0.0.0.0');

    // a wallet: reads the request from the URL, checks the code on the screen, signs, posts
    const req = (await (await fetch(url!)).json()) as { challenge: string; message: string; code: string };
    expect(screen).toContain(`it shows the code ${req.code}`);
    const secret = ed25519.utils.randomSecretKey();
    const walletDid = didKeyFromPublicKey(ed25519.getPublicKey(secret));
    const signature = Buffer.from(ed25519.sign(new TextEncoder().encode(req.message), secret)).toString('base64url');
    const res = await fetch(url!, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ did: walletDid, challenge: req.challenge, signature }),
    });
    expect(res.status).toBe(200);
    const end = await big.until((s) => s.includes('exit='), 'the end');
    expect(end).toContain('exit=0');
    expect(end).toContain(`Signed in as ${walletDid} (wallet; l`);
    const saved = JSON.parse(readFileSync(join(home, 'config/identity.json'), 'utf8'));
    expect(saved).toMatchObject({ did, wallet: { did: walletDid } });
  }, 60_000);

  it('a terminal with no room for the QR code gets the URL and the code instead', async () => {
    small.start(cmd, { cwd: ROOT, width: 80, height: 16 });
    const shown = await small.until((s) => s.includes("waiting for the wallet's signature"), 'the link', 30_000);
    expect(shown).toContain('Open this link in your wallet to sign in (no room for a QR code here):');
    expect(shown).not.toMatch(/[▀▄█]/);
    const url = /^ {2}(http:\/\/127\.0\.0\.1:\d+\/signin\/\S+)$/m.exec(shown)?.[1];
    const req = (await (await fetch(url!)).json()) as { code: string };
    expect(shown).toContain(`it shows the code ${req.code}`);
    small.keys('C-c');
  }, 60_000);

  it('names the domains the key controls when the local registry can tell', async () => {
    const start = await runCli(['daemon', 'start', '--json'], { env });
    expect(start.code, start.stderr).toBe(0);
    // the DID the registry knows (the wallet's, after the sign-in above)
    const me = JSON.parse((await runCli(['whoami', '--json'], { env })).stdout).did as string;
    const made = await runCli(
      ['daemon', 'keys', 'create', '--did', me, '--role', 'representative', '--role', 'member', '--save', '--json'],
      { env },
    );
    expect(made.code, made.stderr).toBe(0);
    const reg = await runCli(['domain', 'register', '--type', 'Protocol', '--name', 'Cookstoves', '--json'], { env });
    expect(reg.code, reg.stderr).toBe(0);
    const domain = JSON.parse(reg.stdout).id as string;
    known.start(cmd.replace('--auth qr --timeout 60', '--auth mnemonic'), { cwd: ROOT, width: 80, height: 24 });
    const shown = await known.until((s) => s.includes('Your offline mnemonic'), 'the question', 30_000);
    expect(shown.replace(/\n/g, '')).toContain(`Signed in as ${me}`);
    expect(shown.replace(/\n/g, '')).toContain(`it controls 1 domain in the local daemon: ${domain}`);
    known.keys('C-c');
  }, 60_000);
});
