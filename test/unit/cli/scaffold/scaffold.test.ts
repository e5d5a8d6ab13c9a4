import { afterAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { renderEnv, renderEnvExample } from '../../../../src/cli/scaffold/env.ts';
import { parseDotEnv, setDotEnvVar } from '../../../../src/lib/project-files.ts';
import { impliedPortNote, parseOracleUrl } from '../../../../src/cli/scaffold/url.ts';
import { checkPrice } from '../../../../src/cli/scaffold/questions.ts';
import { projectName, suggestProjectName } from '../../../../src/cli/scaffold/project-name.ts';
import { cdLine, nextLines } from '../../../../src/cli/scaffold/print.ts';
import type { NewResult } from '../../../../src/cli/scaffold/new.ts';
import { inStep } from '../../../../src/cli/scaffold/update-url.ts';
import { writeProject } from '../../../../src/cli/scaffold/files.ts';
import { askConfirm, askSelect, askText } from '../../../../src/cli/scaffold/ask.ts';
import {
  ed25519KeyOfDid,
  keyOfDid,
  parseSignInLink,
  signInMessage,
  startSignIn,
} from '../../../../src/cli/identity/qr.ts';
import { isOracleKitError } from '../../../../src/lib/errors.ts';
import { botLocalpart, provisionBot } from '../../../../src/cli/scaffold/matrix.ts';
import { startHomeserver } from '../../../helpers/matrix-account-server.ts';
import { testWallet } from '../../../helpers/wallet.ts';

const tmp: string[] = [];
afterAll(() => {
  for (const d of tmp) rmSync(d, { recursive: true, force: true });
});

describe('.env', () => {
  const v = {
    port: 3000,
    llmBaseUrl: 'https://openrouter.ai/api/v1',
    signingMnemonic: 'secret words',
    matrix: { baseUrl: 'http://hs', userId: '@o:hs', accessToken: 'syt_x', password: 'pw' },
  };
  it('holds PORT, the model, the signing key, messaging and every plugin variable with what it enables', () => {
    const t = renderEnv(v);
    expect(parseDotEnv(t).PORT).toBe('3000');
    expect(parseDotEnv(t).SIGNING_MNEMONIC).toBe('secret words');
    expect(parseDotEnv(t).MATRIX_ORACLE_ADMIN_ACCESS_TOKEN).toBe('syt_x');
    expect(parseDotEnv(t).LLM_PROVIDER_API_KEY).toBe('');
    for (const name of [
      'MEMORY_MCP_URL',
      'FIRECRAWL_MCP_URL',
      'SANDBOX_MCP_URL',
      'SKILLS_DIR',
      'COMPOSIO_API_KEY',
      'SLACK_BOT_TOKEN',
      'TASKS_STORE_URL',
    ])
      expect(t).toMatch(new RegExp(`^# ${name}=\\s+# \\w`, 'm'));
  });
  it('.env.example carries no secret', () => {
    const t = renderEnvExample(v);
    expect(parseDotEnv(t).SIGNING_MNEMONIC).toBe('');
    expect(parseDotEnv(t).MATRIX_ORACLE_ADMIN_ACCESS_TOKEN).toBe('');
    expect(parseDotEnv(t).MATRIX_ORACLE_ADMIN_PASSWORD).toBe('');
    expect(parseDotEnv(t).PORT).toBe('3000');
  });
  it('setDotEnvVar replaces one variable and keeps the rest', () => {
    expect(setDotEnvVar('A=1\nPORT=3000\nB=2\n', 'PORT', '3100')).toBe('A=1\nPORT=3100\nB=2\n');
    expect(setDotEnvVar('A=1', 'PORT', '3100')).toBe('A=1\nPORT=3100\n');
  });
});

describe('the oracle URL', () => {
  it('takes a local URL’s port as PORT', () => {
    expect(parseOracleUrl('http://localhost:3000/')).toEqual({
      url: 'http://localhost:3000',
      local: true,
      port: 3000,
      portImplied: false,
      bindHost: '127.0.0.1',
    });
    expect(parseOracleUrl('http://127.0.0.1:8080')).toMatchObject({ local: true, port: 8080 });
    expect(parseOracleUrl('https://oracle.example.org')).toEqual({
      url: 'https://oracle.example.org',
      local: false,
      port: 443,
      portImplied: true,
      bindHost: '127.0.0.1',
    });
  });
  it('binds the URL’s own loopback address, else 127.0.0.1', () => {
    expect(parseOracleUrl('http://127.0.0.5:8080').bindHost).toBe('127.0.0.5');
    expect(parseOracleUrl('http://[::1]:8080').bindHost).toBe('::1');
    expect(parseOracleUrl('http://app.localhost:8080')).toMatchObject({ local: true, bindHost: '127.0.0.1' });
  });
  it('refuses 0.0.0.0 and :: — addresses to bind, not to reach — naming the flag and what is valid', () => {
    for (const bad of ['http://0.0.0.0:3000', 'http://[::]:3000', 'http://0:3000']) {
      try {
        parseOracleUrl(bad);
        expect.unreachable();
      } catch (e) {
        expect(isOracleKitError(e) && [e.code, e.field, e.value]).toEqual(['invalid_url', 'url', bad]);
        expect((e as Error).message).toContain('not one a client can reach');
        expect(isOracleKitError(e) && e.valid).toMatch(/http:\/\/localhost:<port>/);
      }
    }
  });
  it('says that a local URL without a port means 80 (or 443), and nothing when the port is written', () => {
    expect(impliedPortNote(parseOracleUrl('http://localhost'))).toMatch(
      /^--url http:\/\/localhost has no port, so it means port 80 .+http:\/\/localhost:3000$/,
    );
    expect(impliedPortNote(parseOracleUrl('https://127.0.0.1/'))).toMatch(/means port 443 \(the https default\)/);
    expect(impliedPortNote(parseOracleUrl('http://localhost:80'))).toBeUndefined();
    expect(impliedPortNote(parseOracleUrl('https://oracle.example.org'))).toBeUndefined(); // public: PORT is --port
  });
  it('refuses other schemes, credentials and junk, naming the flag', () => {
    for (const bad of ['ftp://x', 'http://u:p@host', 'not a url', 'http://h/#x']) {
      try {
        parseOracleUrl(bad);
        expect.unreachable();
      } catch (e) {
        expect(isOracleKitError(e) && e.field).toBe('url');
      }
    }
  });
});

describe('the project files', () => {
  it('renders every template with no token left, .env 0600, .gitignore renamed', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ok-scaffold-'));
    tmp.push(dir);
    const files = writeProject(dir, {
      packageName: 'demo',
      oraclekitSpec: '^0.1.0',
      callsSpec: '^0.1.0',
      config: {
        name: 'Demo "quoted"',
        description: 'A "demo"',
        model: 'm',
        prompt: 'p',
        oracleDid: 'did:ixo:entity:0123456789abcdef0123456789abcdef',
        price: 0,
        network: 'local',
        apiUrl: 'http://localhost:3000',
        wsUrl: 'http://localhost:3000',
      },
      env: { port: 3000, llmBaseUrl: 'http://llm' },
    });
    expect(files).toEqual(
      expect.arrayContaining([
        '.env',
        '.env.example',
        '.gitignore',
        'oracle.config.json',
        'package.json',
        'README.md',
        'src/main.ts',
        'src/oracle.ts',
        'src/plugins/local-time.ts',
        'test/oracle.test.ts',
      ]),
    );
    for (const f of files) expect(readFileSync(join(dir, f), 'utf8')).not.toMatch(/__[A-Z_]+__/);
    expect(statSync(join(dir, '.env')).mode & 0o777).toBe(0o600);
    const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
    expect(pkg).toMatchObject({
      name: 'demo',
      description: 'A "demo"',
      dependencies: { oraclekit: '^0.1.0' },
      // npm test typechecks before it runs the tests, with the project's own typescript
      scripts: {
        start: expect.stringContaining('src/main.ts'),
        typecheck: 'tsc',
        test: expect.stringMatching(/^tsc && node --test /),
      },
      devDependencies: { typescript: expect.any(String) },
    });
    expect(JSON.parse(readFileSync(join(dir, 'oracle.config.json'), 'utf8'))).toMatchObject({
      oracleDid: 'did:ixo:entity:0123456789abcdef0123456789abcdef',
      apiUrl: 'http://localhost:3000',
    });
    expect(readdirSync(dir)).not.toContain('_gitignore');
    // live calls come from their own package, which installs with every install script run (no allowScripts needed)
    const deps = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
    expect(deps.dependencies).toMatchObject({ oraclekit: '^0.1.0', '@oraclekit/calls': '^0.1.0' });
    expect(deps).not.toHaveProperty('allowScripts');
  });
});

describe('questions as flags', () => {
  const noTty = { yes: false, interactive: false };
  it('a flag answers; --yes takes the default; without a terminal a missing answer names its flag', async () => {
    expect(await askText(noTty, 'name', 'given', { message: 'n', default: 'd' })).toBe('given');
    expect(await askText({ yes: true, interactive: false }, 'name', undefined, { message: 'n', default: 'd' })).toBe(
      'd',
    );
    expect(await askConfirm({ yes: true, interactive: false }, 'git', undefined, { message: 'g', default: true })).toBe(
      true,
    );
    await expect(
      askSelect(noTty, 'network', undefined, {
        message: 'n',
        default: 'local',
        choices: [{ value: 'local', name: 'l' }],
      }),
    ).rejects.toMatchObject({ field: 'network', status: 400 });
    await expect(askConfirm(noTty, 'install', undefined, { message: 'i', default: true })).rejects.toMatchObject({
      field: 'install',
    });
    await expect(
      askText(noTty, 'price', 'x', { message: 'p', validate: (v) => (/^\d+$/.test(v) ? true : 'a number') }),
    ).rejects.toMatchObject({ field: 'price' });
  });
});

describe('QR sign-in (the test plays the wallet)', () => {
  it('the link carries the challenge and the callback; a valid signature yields the wallet’s DID', async () => {
    const s = await startSignIn({ aud: 'did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK', timeoutMs: 60_000 });
    try {
      const req = parseSignInLink(s.link);
      expect(req).toEqual(s.request);
      expect(req.callback).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/signin\//);
      // the wallet can read the request back from the callback URL
      const got = (await (await fetch(req.callback)).json()) as { message: string };
      expect(got.message).toBe(signInMessage(req));
      const w = testWallet();
      const other = testWallet();
      const post = (body: unknown) =>
        fetch(req.callback, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
      expect(
        (await post({ did: w.did, challenge: req.challenge, signature: other.sign(signInMessage(req)) })).status,
      ).toBe(401);
      expect((await post({ did: w.did, challenge: 'nope', signature: w.sign(signInMessage(req)) })).status).toBe(400);
      expect(
        (
          await post({
            did: 'did:ixo:entity:0123456789abcdef0123456789abcdef',
            challenge: req.challenge,
            signature: w.sign(signInMessage(req)),
          })
        ).status,
      ).toBe(400);
      const ok = await post({ did: w.did, challenge: req.challenge, signature: w.sign(signInMessage(req)) });
      expect(ok.status).toBe(200);
      expect(await s.result).toEqual({ did: w.did });
      expect((await post({ did: w.did, challenge: req.challenge, signature: w.sign(signInMessage(req)) })).status).toBe(
        409,
      );
    } finally {
      await s.close();
    }
  });

  it('accepts a secp256k1 did:key wallet too (ECDSA over SHA-256)', async () => {
    const { secp256k1 } = await import('@noble/curves/secp256k1.js');
    const { base58Encode } = await import('../../../../src/lib/did/did.ts');
    const sk = secp256k1.utils.randomSecretKey();
    const did = 'did:key:z' + base58Encode(Uint8Array.from([0xe7, 0x01, ...secp256k1.getPublicKey(sk, true)]));
    expect(keyOfDid(did)?.type).toBe('secp256k1');
    const s = await startSignIn({ aud: 'did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK', timeoutMs: 60_000 });
    try {
      const msg = new TextEncoder().encode(signInMessage(s.request));
      const signature = Buffer.from(secp256k1.sign(msg, sk)).toString('base64');
      const res = await fetch(s.request.callback, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ did, challenge: s.request.challenge, signature }),
      });
      expect(res.status).toBe(200);
      expect(await s.result).toEqual({ did });
    } finally {
      await s.close();
    }
  });

  it('an abort (Ctrl+C in new) ends the wait', async () => {
    const ac = new AbortController();
    const s = await startSignIn({
      aud: 'did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK',
      timeoutMs: 60_000,
      signal: ac.signal,
    });
    ac.abort();
    await expect(s.result).rejects.toMatchObject({ code: 'cancelled' });
    await s.close();
  });

  it('times out with a clear error', async () => {
    const s = await startSignIn({ aud: 'did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK', timeoutMs: 50 });
    await expect(s.result).rejects.toMatchObject({ code: 'signin_timeout', status: 504 });
    await s.close();
  });

  it('reads Ed25519 keys from did:key only', () => {
    const w = testWallet();
    expect(ed25519KeyOfDid(w.did)).toHaveLength(32);
    expect(ed25519KeyOfDid('did:ixo:entity:0123456789abcdef0123456789abcdef')).toBeUndefined();
  });
});

describe('Matrix bot provisioning against a loopback homeserver', () => {
  it('registers through the dummy stage, then logs in to an existing account', async () => {
    const hs = await startHomeserver();
    try {
      const bot = await provisionBot({ baseUrl: hs.url + '/', user: botLocalpart('My Demo!') });
      expect(bot).toMatchObject({ baseUrl: hs.url, userId: '@oracle-my-demo:localhost', created: true });
      expect(hs.tokens.get(bot.accessToken)).toBe(bot.userId);
      expect(hs.requests.map((r) => r.path)).toEqual([
        '/_matrix/client/v3/register',
        '/_matrix/client/v3/register',
        '/_matrix/client/v3/account/whoami',
      ]);
      // the account exists: without its password it is a clear conflict; with it, a login
      await expect(provisionBot({ baseUrl: hs.url, user: 'oracle-my-demo' })).rejects.toMatchObject({
        code: 'matrix_user_in_use',
        field: 'matrix-password',
      });
      const again = await provisionBot({ baseUrl: hs.url, user: 'oracle-my-demo', password: bot.password });
      expect(again).toMatchObject({ userId: bot.userId, created: false });
      await expect(provisionBot({ baseUrl: hs.url, user: 'oracle-my-demo', password: 'wrong' })).rejects.toMatchObject({
        code: 'matrix_forbidden',
        status: 403,
      });
    } finally {
      await hs.close();
    }
  });

  it('uses a registration token when the homeserver asks for one, and says what it needs otherwise', async () => {
    const hs = await startHomeserver({ flows: [['m.login.registration_token']], registrationToken: 'tok' });
    try {
      await expect(provisionBot({ baseUrl: hs.url, user: 'bot1' })).rejects.toMatchObject({
        code: 'matrix_registration_flow',
        field: 'matrix-registration-token',
      });
      const bot = await provisionBot({ baseUrl: hs.url, user: 'bot1', registrationToken: 'tok' });
      expect(bot.userId).toBe('@bot1:localhost');
    } finally {
      await hs.close();
    }
  });

  it('an unreachable homeserver is unavailable (exit 9)', async () => {
    await expect(provisionBot({ baseUrl: 'http://127.0.0.1:1', user: 'x' })).rejects.toMatchObject({ status: 503 });
  });
});

describe('prices', () => {
  it('accepts 0 and decimals the credits ledger keeps exactly; refuses the rest saying what was wrong', () => {
    for (const ok of ['0', '0.5', '0.000001', '2.5', '1000000000', '999999999.999999', ' 3 '])
      expect(checkPrice(ok), ok).toBe(true);
    expect(checkPrice('0.0000001')).toBe(
      '0.0000001 has 7 decimals; at most 6 (the ledger counts millionths of a credit)',
    );
    expect(checkPrice('1000000000.5')).toBe('1000000000.5 is above 1000000000, the most the ledger sums exactly');
    expect(checkPrice('1000000001')).toBe('1000000001 is above 1000000000, the most the ledger sums exactly');
    expect(checkPrice('-1')).toBe('-1 is below 0: credits per turn, 0 (free) or more');
    for (const bad of ['1e3', '', 'free', '.5', '5.'])
      expect(checkPrice(bad), bad).toBe(
        `${JSON.stringify(bad)} is not a number: credits per turn, e.g. 0.5 (0 = free)`,
      );
  });
});

describe('the project name', () => {
  it('offers a usable name for one that is not, as create-vite does', () => {
    expect(suggestProjectName('Bad Name')).toBe('bad-name');
    expect(suggestProjectName('  My Weather Oracle!  ')).toBe('my-weather-oracle');
    expect(suggestProjectName('.hidden_thing')).toBe('hidden_thing');
    expect(suggestProjectName('???')).toBe('my-oracle');
  });

  it('without a terminal: a missing name names the argument, a bad one suggests a usable one; --yes takes my-oracle', async () => {
    const noTty = { yes: false, interactive: false };
    await expect(projectName(noTty, undefined)).rejects.toMatchObject({
      code: 'missing_answer',
      field: 'project-name',
    });
    await expect(projectName(noTty, 'Bad Name')).rejects.toMatchObject({
      code: 'invalid_project_name',
      field: 'project-name',
      message: 'project name "Bad Name" is not valid; try bad-name',
    });
    expect(await projectName({ yes: true, interactive: false }, undefined)).toBe('my-oracle');
    expect(await projectName(noTty, 'fine.name_1')).toBe('fine.name_1');
  });
});

describe('"Next:"', () => {
  it('prints a cd relative to where new ran, quoted when it needs it, none when it is that folder', () => {
    expect(cdLine('/home/me/work/my-oracle', '/home/me/work')).toEqual(['  cd my-oracle']);
    expect(cdLine('/home/me/other/o', '/home/me/work')).toEqual(['  cd ../other/o']);
    expect(cdLine('/home/me/work/my oracle', '/home/me/work')).toEqual(["  cd 'my oracle'"]);
    expect(cdLine('/home/me/work', '/home/me/work')).toEqual([]);
  });

  it('names exactly the commands the setup needs: the Node it runs on, no key line for a model on this machine, npm run chat', () => {
    const r = (installed: boolean, baseUrl: string, local: boolean) =>
      ({ dir: '/w/o', installed, llm: { baseUrl, local } }) as NewResult;
    expect(nextLines(r(true, 'http://127.0.0.1:11434/v1', true), '/w')).toEqual([
      '  cd o',
      '  node --version    # Node.js 22 (22.22.2 or later) or 24 (24.15 or later)',
      '  npm test',
      '  npm start',
      '  npm run chat      # in a second terminal, while it runs',
    ]);
    expect(nextLines(r(false, 'https://openrouter.ai/api/v1', false), '/w')).toEqual([
      '  cd o',
      '  node --version    # Node.js 22 (22.22.2 or later) or 24 (24.15 or later)',
      '  npm install',
      '  # put your key for https://openrouter.ai/api/v1 in .env: LLM_PROVIDER_API_KEY=…',
      '  npm test',
      '  npm start',
      '  npm run chat      # in a second terminal, while it runs',
    ]);
  });
});

describe('update-oracle-api-url keeps files in step', () => {
  it('replaces the old URL (not a longer one that starts with it) and the ${PORT:-n} default', () => {
    const text =
      'API http://localhost:3000 and http://localhost:3000/health, not http://localhost:30000; chat --oracle http://localhost:${PORT:-3000}';
    expect(inStep(text, ['http://localhost:3000'], 'http://localhost:3100', 3100)).toBe(
      'API http://localhost:3100 and http://localhost:3100/health, not http://localhost:30000; chat --oracle http://localhost:${PORT:-3100}',
    );
    // a public URL: the port default stays (PORT is not the URL's port)
    expect(
      inStep(
        'x http://localhost:3000 ${PORT:-3000}',
        ['http://localhost:3000', undefined],
        'https://o.example.org',
        undefined,
      ),
    ).toBe('x https://o.example.org ${PORT:-3000}');
  });
});
