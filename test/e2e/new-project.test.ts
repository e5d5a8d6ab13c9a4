/**
 * The scaffolded project works: `oraclekit new` (with its npm install) in a
 * temporary folder, the dependency on oraclekit an `npm pack` tarball of this
 * checkout (copied into the project's vendor/); then the project's own
 * `npm test` typechecks (a misspelt variable fails it) and passes, and so does
 * a plugin copied from docs/plugins.md's worked example — free,
 * and priced at the smallest, a fractional and the largest price the
 * scaffolder accepts (one of them answered at the interactive prompt under
 * tmux), its tests paying for the turn — and `npm start` binds where it says,
 * serves the oracle at the URL registered for it, and says when its model
 * cannot be used, or that its port is taken and what to do.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { once } from 'node:events';
import { connect } from 'node:net';
import { networkInterfaces, tmpdir } from 'node:os';
import { stripVTControlCharacters } from 'node:util';
import { basename, join } from 'node:path';
import { BIN, ROOT, runCli } from '../helpers/cli.ts';
import { freePort } from '../helpers/loopback.ts';
import { hasTmux, Tmux } from '../helpers/tmux.ts';
import { startScriptedModelServer, type ScriptedModelServer } from '../../src/testing.ts';
import { generateSigner } from '../../src/lib/keys/keys.ts';
import { mintInvocation } from '../../src/lib/ucan/ucan.ts';
import { NPM_QUIET, scaffoldEnv } from '../helpers/scaffold-env.ts';
import { packAll } from '../helpers/packs.ts';

const home = mkdtempSync(join(tmpdir(), 'ok-proj-home-'));
const work = mkdtempSync(join(tmpdir(), 'ok-proj-work-'));
// keep HOME: npm reuses its cache
const env = scaffoldEnv(home, { CI: '', ORACLEKIT_AUTOSTART: '', ...NPM_QUIET });
const SOCK = `ok-new-${process.pid}`;
let tarball: string;
let port: number;
let project: Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
let server: ChildProcess | undefined;

function npm(args: string[], cwd: string, extra: Record<string, string> = {}): { code: number; out: string } {
  try {
    const out = execFileSync('npm', args, {
      cwd,
      env: { ...process.env, ...env, ...extra },
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: 150_000,
    });
    return { code: 0, out };
  } catch (e) {
    const x = e as { status?: number; stdout?: string; stderr?: string };
    return { code: x.status ?? -1, out: `${x.stdout ?? ''}${x.stderr ?? ''}` };
  }
}

/** `npm test` of a project: green, with the names of its tests (node:test's spec reporter names each). */
function projectTests(dir: string, count = 7): string {
  const r = npm(['test'], dir);
  const out = stripVTControlCharacters(r.out);
  expect(r.code, out).toBe(0);
  expect(out).toMatch(new RegExp(`ℹ tests ${count}\\nℹ suites \\d+\\nℹ pass ${count}\\nℹ fail 0\\n`));
  return out;
}

/** A copy of the installed project to change (its node_modules shared with the original). */
function copyProject(name: string): string {
  const dir = join(work, name);
  cpSync(project.dir, dir, { recursive: true, filter: (src) => basename(src) !== 'node_modules' });
  symlinkSync(join(project.dir, 'node_modules'), join(dir, 'node_modules'));
  return dir;
}

/** `npm start` in its own process group (so the oracle under npm stops with it), until it says where it listens. */
async function start(dir: string, extra: Record<string, string>): Promise<{ log: () => string }> {
  server = spawn('npm', ['start'], {
    cwd: dir,
    env: { ...process.env, ...env, ...extra },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let log = '';
  await new Promise<void>((ok, ko) => {
    const onData = (d: Buffer) => {
      log += d.toString();
      if (log.includes('oracle listening on')) ok();
    };
    server!.stdout!.on('data', onData);
    server!.stderr!.on('data', onData);
    server!.on('close', (c) => ko(new Error(`npm start exited ${c}: ${log}`)));
  });
  return { log: () => log };
}

async function stop(): Promise<void> {
  if (server?.pid && server.exitCode === null) {
    const closed = new Promise((ok) => server!.on('close', ok));
    process.kill(-server.pid, 'SIGTERM');
    await closed;
  }
  server = undefined;
}

/** Whether a TCP connection to host:port is accepted. */
function connects(host: string, p: number): Promise<boolean> {
  return new Promise((ok) => {
    const s = connect({ host, port: p });
    s.once('connect', () => (s.destroy(), ok(true)));
    s.once('error', () => ok(false));
  });
}

beforeAll(async () => {
  // every package's tarball in one folder (`npm run pack`): `new` takes @oraclekit/calls' from beside oraclekit's
  tarball = packAll(join(work, 'packs')).oraclekit!;
  port = await freePort();
  const r = await runCli(
    [
      'new',
      'my-oracle',
      '--yes',
      '--no-git',
      '--url',
      `http://localhost:${port}`,
      '--oraclekit-version',
      `file:${tarball}`,
      '--json',
    ],
    { env, cwd: work, timeoutMs: 330_000 },
  );
  expect(r.code, r.stderr).toBe(0);
  project = JSON.parse(r.stdout);
  // every package packed, then two installed: minutes on a busy 2-core machine
}, 420_000);

afterAll(async () => {
  await stop();
  if (hasTmux) new Tmux(SOCK, 'x').kill();
  await runCli(['daemon', 'stop', '--grace', '1'], { env });
  rmSync(home, { recursive: true, force: true });
  rmSync(work, { recursive: true, force: true }); // two installed projects: a guard, not a latency bound
}, 180_000);

describe('a freshly scaffolded project', () => {
  it('was installed by `new`', () => {
    expect(project).toMatchObject({ installed: true, port, apiUrl: `http://localhost:${port}` });
    expect(project.warnings).toEqual([]);
    // the tarball travels with the project, named by a relative path a teammate's clone resolves too
    const pkg = readFileSync(join(project.dir, 'package.json'), 'utf8');
    expect(JSON.parse(pkg).dependencies.oraclekit).toBe(`file:vendor/${basename(tarball)}`);
    expect(pkg).not.toContain(work);
    expect(readFileSync(join(project.dir, 'vendor', basename(tarball)))).toEqual(readFileSync(tarball));
    // live calls are the package @oraclekit/calls, vendored beside it from the same folder of tarballs
    expect(JSON.parse(pkg).dependencies['@oraclekit/calls']).toMatch(/^file:vendor\/oraclekit-calls-[\d.]+\.tgz$/);
  });

  it('passes its own tests (the oracle with the scripted model of oraclekit/testing), the payment path shown at an example price', () => {
    const out = projectTests(project.dir);
    expect(out).toContain(
      'charges a price (0.5 per turn, when oracle.config.json sets one): 402 with the claim, the contract, the payment, then the answer',
    );
  }, 120_000);

  it('its npm test typechecks: a misspelt ctx.env variable fails it before any test runs', () => {
    const dir = copyProject('typo');
    const plugin = join(dir, 'src/plugins/local-time.ts');
    const text = readFileSync(plugin, 'utf8');
    expect(text).toContain('ctx.env.LOCAL_TIME_DEFAULT_ZONE');
    writeFileSync(plugin, text.replace('ctx.env.LOCAL_TIME_DEFAULT_ZONE', 'ctx.env.LOCAL_TIME_DEFAULT_ZON'));
    const r = npm(['test'], dir);
    const out = stripVTControlCharacters(r.out);
    expect(r.code, out).not.toBe(0);
    expect(out).toContain(
      "Property 'LOCAL_TIME_DEFAULT_ZON' does not exist on type '{ LOCAL_TIME_DEFAULT_ZONE: string; }'",
    );
    expect(out).not.toContain('ℹ tests');
  }, 120_000);

  it('a plugin written from docs/plugins.md alone (its three files) passes the project’s npm test', () => {
    const doc = readFileSync(join(ROOT, 'docs/plugins.md'), 'utf8');
    const from = doc.indexOf('## Worked example');
    const section = doc.slice(from, doc.indexOf('\n## ', from + 1));
    const blocks = [...section.matchAll(/```ts\n\/\/ (\S+)\n([\s\S]*?)```/g)].map(([, path, code]) => ({
      path: path!,
      code: code!,
    }));
    expect(blocks.map((b) => b.path)).toEqual(['src/plugins/dice.ts', 'src/oracle.ts', 'test/dice.test.ts']);
    const dir = copyProject('dice');
    // the doc's src/oracle.ts is the scaffold's, with the plugin imported and listed
    const scaffolded = readFileSync(join(dir, 'src/oracle.ts'), 'utf8');
    expect(
      blocks[1]!.code.replace("import { dicePlugin } from './plugins/dice.ts';\n", '').replace(', dicePlugin]', ']'),
    ).toBe(scaffolded);
    for (const b of blocks) writeFileSync(join(dir, b.path), b.code);
    const out = projectTests(dir, 10);
    expect(out).toContain('rolls dice for a signed-in user, once the model loaded the plugin');
    expect(out).toContain('tells the model why a roll failed');
  }, 120_000);

  it('its README links to the documentation installed with oraclekit, not a placeholder', () => {
    const readme = readFileSync(join(project.dir, 'README.md'), 'utf8');
    expect(readme).not.toContain('](https://github.com/)');
    for (const [, target] of readme.matchAll(/\]\((node_modules\/[^)]+)\)/g))
      expect(() => readFileSync(join(project.dir, target!)), target).not.toThrow();
    expect(readme).toContain('node_modules/oraclekit/docs/plugins.md');
  });

  describe('`npm start`', () => {
    let model: ScriptedModelServer;
    beforeAll(async () => {
      model = await startScriptedModelServer();
    });
    afterAll(async () => {
      await stop();
      await model.close();
    });

    it('binds 127.0.0.1 as it says, serves the oracle at the URL registered for it, and counts its excluded plugins right', async () => {
      const { log } = await start(project.dir, { LLM_BASE_URL: model.baseURL, LLM_PROVIDER_API_KEY: 'sk-test' });
      expect(log()).toContain('runtime v');
      expect(log()).toContain('[boot] loaded: local-time');
      expect(log()).toContain(`oracle listening on http://127.0.0.1:${port} (this machine only`);
      // one `[boot] excluded:` line per plugin the summary counts (credits, free, among them)
      const lines = log().split('\n');
      const each = lines.filter((l) => l.startsWith('[boot] excluded: '));
      expect(each).toContain('[boot] excluded: credits (price)');
      expect(lines.find((l) => /^\[boot\] excluded \d+ plugin\(s\)/.test(l))).toMatch(
        new RegExp(`^\\[boot\\] excluded ${each.length} plugin\\(s\\)`),
      );
      const health = await (await fetch(`${project.apiUrl}/health`)).json();
      expect(health).toMatchObject({ status: 'ok', name: 'my-oracle', oracleDid: project.did });
      const ready = await fetch(`${project.apiUrl}/ready`);
      expect(ready.status).toBe(200);
      expect(await ready.json()).toMatchObject({ ready: true, model: { ready: true } });
      // where it is bound: 127.0.0.1 answers; another address of this machine does not
      expect(await connects('127.0.0.1', port)).toBe(true);
      expect(await connects('127.0.0.2', port)).toBe(false);
      for (const a of Object.values(networkInterfaces()).flat())
        if (a && !a.internal && a.family === 'IPv4') expect(await connects(a.address, port), a.address).toBe(false);
      await stop();
    }, 60_000);

    it('logs a line per request and a warn line per failed turn (pino JSON on stdout), the boot lines unchanged', async () => {
      const { log } = await start(project.dir, { LLM_BASE_URL: model.baseURL, LLM_PROVIDER_API_KEY: 'sk-test' });
      const user = await generateSigner();
      const headers = async () => ({
        authorization: `Bearer ${await mintInvocation({ issuer: user, audience: project.did as string })}`,
        'x-auth-type': 'ucan',
        'content-type': 'application/json',
      });
      const session = await fetch(`${project.apiUrl}/sessions`, {
        method: 'POST',
        headers: await headers(),
        body: '{}',
      });
      expect(session.status).toBe(201);
      const { sessionId } = (await session.json()) as { sessionId: string };
      model.enqueue({ steps: [{ type: 'http_error', status: 400, body: { error: { message: 'no such model' } } }] });
      const turn = await fetch(`${project.apiUrl}/messages/${sessionId}`, {
        method: 'POST',
        headers: await headers(),
        body: JSON.stringify({ message: 'hi', stream: false }),
      });
      expect(turn.status).toBe(502);
      const records = async () => {
        for (let i = 0; i < 100; i++) {
          const r = log()
            .split('\n')
            .filter((l) => l.startsWith('{'))
            .map((l) => JSON.parse(l) as Record<string, unknown>);
          if (r.some((x) => x.path === `/messages/${sessionId}`)) return r;
          await new Promise((ok) => setTimeout(ok, 50));
        }
        throw new Error(`no request line in: ${log()}`);
      };
      const got = await records();
      expect(got).toContainEqual(
        expect.objectContaining({ level: 30, msg: 'request', method: 'POST', path: '/sessions', status: 201 }),
      );
      expect(got).toContainEqual(
        expect.objectContaining({ msg: 'request', method: 'POST', path: `/messages/${sessionId}`, status: 502 }),
      );
      expect(got).toContainEqual(
        expect.objectContaining({ level: 40, msg: 'turn failed', sessionId, kind: 'provider', code: 'provider_error' }),
      );
      expect(log()).toContain('[boot] loaded: local-time');
      expect(log()).not.toContain('sk-test');
      await stop();
    }, 60_000);

    it('with LLM_PROVIDER_API_KEY blank (as scaffolded), warns at boot naming it, and /ready says the model is not ready', async () => {
      const { log } = await start(project.dir, { LLM_PROVIDER_API_KEY: '' });
      expect(log()).toContain(
        "[boot] warning: model not ready: LLM_PROVIDER_API_KEY is blank: the model at https://openrouter.ai/api/v1 refuses turns without a key. Set 'LLM_PROVIDER_API_KEY'",
      );
      const ready = await fetch(`${project.apiUrl}/ready`);
      expect(ready.status).toBe(503);
      expect(await ready.json()).toMatchObject({
        ready: false,
        pending: ['model'],
        model: { ready: false, set: 'LLM_PROVIDER_API_KEY' },
      });
      await stop();
    }, 60_000);

    it('with its PORT taken, names PORT and how to move the oracle (update-oracle-api-url)', async () => {
      const taken = createServer().listen(port, '127.0.0.1');
      await once(taken, 'listening');
      try {
        const r = npm(['start'], project.dir, { LLM_BASE_URL: model.baseURL, LLM_PROVIDER_API_KEY: 'sk-test' });
        expect(r.code, r.out).not.toBe(0);
        expect(r.out).toContain(`[boot-error] port ${port} is in use (PORT=${port} in .env`);
        expect(r.out).toContain(
          `npx oraclekit update-oracle-api-url http://localhost:${port + 1} --no-check && npm start`,
        );
      } finally {
        taken.close();
      }
    }, 60_000);

    it('with an unreachable model URL, warns naming LLM_BASE_URL, and /ready says the model is not ready', async () => {
      const { log } = await start(project.dir, {
        LLM_BASE_URL: 'http://model.invalid/v1',
        LLM_PROVIDER_API_KEY: 'sk-test',
      });
      const ready = await fetch(`${project.apiUrl}/ready`);
      expect(ready.status).toBe(503);
      const body = (await ready.json()) as { model: { reason: string } };
      expect(body).toMatchObject({ ready: false, pending: ['model'], model: { ready: false, set: 'LLM_BASE_URL' } });
      expect(body.model.reason).toMatch(/^the model at http:\/\/model\.invalid\/v1 is unreachable \(.+\)$/);
      // the warning is the process's own output line: it reaches this pipe a moment after /ready can answer
      const warning = `[boot] warning: model not ready: ${body.model.reason}. Set 'LLM_BASE_URL'`;
      for (const end = Date.now() + 5000; !log().includes(warning) && Date.now() < end;)
        await new Promise((r) => setTimeout(r, 50));
      expect(log()).toContain(warning);
      await stop();
    }, 60_000);
  });
});

describe('a priced scaffold passes its own tests, which pay for the turn', () => {
  const priced: Record<string, string> = {};

  it.skipIf(!hasTmux)(
    'answered at the interactive price prompt (0.5): refuses a price the ledger cannot keep, installs, and prints a relative cd',
    async () => {
      const t = new Tmux(SOCK, 'priced');
      const vars = Object.entries(env)
        .map(([k, v]) => `${k}='${v}'`)
        .join(' ');
      t.start(
        `env -u CI ${vars} NO_COLOR=1 '${process.execPath}' '${BIN}' new priced --network local --no-git --url http://localhost:${await freePort()} --oraclekit-version 'file:${tarball}'; echo "EXIT=$?"; sleep 600`,
        { cwd: work, width: 200, height: 60 },
      );
      const answer = async (prompt: string, text: string) => {
        await t.until((s) => s.includes(`? ${prompt}`), `the prompt "${prompt}"`);
        t.line(text);
      };
      await answer('Oracle name', '');
      await answer('Description', '');
      await answer('Price in credits per turn (0 = free)', '0.0000001');
      await t.until((s) => s.includes('0.0000001 has 7 decimals; at most 6'), 'the price refused');
      t.keys('C-u');
      t.line('0.5');
      await t.until((s) => s.includes('✔ Price in credits per turn (0 = free) 0.5'), 'the price taken');
      await answer('Model (OpenAI-compatible id)', '');
      await answer('Install dependencies (npm install)?', '');
      const screen = await t.until((s) => s.includes('EXIT='), 'the end', 170_000);
      expect(screen).toContain('EXIT=0');
      // Next: a cd relative to where `new` ran, not its absolute path
      expect(screen).toMatch(/Next:\n {2}cd priced\n/);
      expect(screen).not.toContain(`cd ${join(work, 'priced')}`);
      priced['0.5'] = join(work, 'priced');
      expect(JSON.parse(readFileSync(join(priced['0.5'], 'oracle.config.json'), 'utf8'))).toMatchObject({ price: 0.5 });
      const out = projectTests(priced['0.5']);
      expect(out).toContain('answers a user through its own tool (after paying 0.5 for the turn)');
      expect(out).toContain('charges its price: 402 with the claim, the contract, the payment, then the answer');
    },
    200_000,
  );

  // the smallest price above 0 and the largest the scaffolder accepts, given as flags; node_modules as the installed
  // one's (same dependencies)
  it.each(['0.000001', '1000000000'])(
    '--price %s',
    async (price) => {
      const name = `priced-${price.replace('.', '-')}`;
      const r = await runCli(
        [
          'new',
          name,
          '--yes',
          '--no-git',
          '--no-install',
          '--price',
          price,
          '--url',
          `http://localhost:${await freePort()}`,
          '--oraclekit-version',
          `file:${tarball}`,
          '--json',
        ],
        { env, cwd: work, timeoutMs: 60_000 },
      );
      expect(r.code, r.stderr).toBe(0);
      const dir = JSON.parse(r.stdout).dir as string;
      expect(JSON.parse(readFileSync(join(dir, 'oracle.config.json'), 'utf8')).price).toBe(Number(price));
      symlinkSync(join(priced['0.5'] ?? project.dir, 'node_modules'), join(dir, 'node_modules'));
      const out = projectTests(dir);
      expect(out).toContain(`answers a user through its own tool (after paying ${Number(price)} for the turn)`);
    },
    120_000,
  );
});
