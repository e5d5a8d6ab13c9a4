/**
 * `oraclekit chat` without a TTY, as a real child process (the built CLI)
 * against a real runtime: one line per turn, plain text or JSON lines; the
 * connection order (--oracle URL, --oracle DID through a registry,
 * ./oracle.config.json + .env PORT); identity saved 0600; clear errors.
 */
import { mkdtempSync, mkdirSync, rmSync, statSync, writeFileSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.ts';
import { startHarness, type Harness } from '../helpers/runtime-harness.ts';
import { callTool, say } from '../helpers/scripted-model-server.ts';
import { generateMnemonic, signerFromMnemonic } from '../../src/lib/keys/keys.ts';

let h: Harness;
let home: string;
let registry: FastifyInstance;
let registryUrl: string;
beforeAll(async () => {
  h = await startHarness();
  home = mkdtempSync(join(tmpdir(), 'oraclekit-chat-'));
  // the registry's public read (registry.md): GET /public/v1/domains/:did → {services:[{id, type, serviceEndpoint}]}
  registry = Fastify();
  registry.get<{ Params: { did: string } }>('/public/v1/domains/:did', async (req, reply) => {
    if (req.params.did !== h.oracleDid)
      return reply
        .status(404)
        .send({ statusCode: 404, code: 'domain_not_found', message: `no domain ${req.params.did}` });
    return {
      did: h.oracleDid,
      type: 'oracle',
      services: [
        { id: '#api', type: 'oracleService', serviceEndpoint: h.url },
        { id: '#ws', type: 'oracleService', serviceEndpoint: h.url },
      ],
    };
  });
  registryUrl = await registry.listen({ port: 0, host: '127.0.0.1' });
});
afterAll(async () => {
  await h?.close();
  await registry?.close();
  rmSync(home, { recursive: true, force: true });
});

const env = () => ({ ORACLEKIT_HOME: home, CI: '1' });

describe('oraclekit chat (piped)', () => {
  it('streams plain text per line, tool calls on stderr; saves the identity with mode 0600', async () => {
    h.model.enqueue(
      callTool('load_capability', { names: ['weather'] }, 'c1'),
      callTool('get_current_weather', { city: 'Oslo' }, 'c2'),
      say('It is snowing in Oslo.'),
      say('Second answer.'),
    );
    const r = await runCli(['chat', '--oracle', h.url], { input: 'weather in Oslo?\nand again\n', env: env() });
    // tool lines in words, never the protocol's state names
    expect(r.stderr).toContain('[tool] get_current_weather running\n');
    expect(r.stderr).toContain('[tool] get_current_weather done');
    expect(r.stderr).not.toContain('isRunning');
    expect(r.stderr).toContain('Created your identity did:key:z6Mk');
    expect(r.stdout).toBe('It is snowing in Oslo.\nSecond answer.\n');
    expect(r.code).toBe(0);
    const idFile = join(home, 'config', 'identity.json');
    expect(statSync(idFile).mode & 0o777).toBe(0o600);
    const did = JSON.parse(readFileSync(idFile, 'utf8')).did as string;
    // the same identity next time: its sessions are there
    const r2 = await runCli(['--chat', '--oracle', h.url], { input: '/sessions\n', env: env() });
    expect(r2.stderr).toMatch(/1 session:/);
    expect(r2.stderr).not.toContain('Created your identity');
    expect(did).toMatch(/^did:key:z6Mk/);
  });

  it('--session continues a session and recaps it; an unknown one is an error', async () => {
    const m = generateMnemonic();
    const file = join(home, 'resume.txt');
    writeFileSync(file, m, { mode: 0o600 });
    h.model.enqueue(say('First answer.'));
    await runCli(['chat', '--oracle', h.url, '--mnemonic-file', file], { input: 'first question\n', env: env() });
    const signer = await signerFromMnemonic(m);
    const [s] = (await h.app.runtime.store.listSessions(signer.did(), 10, 0)).sessions;
    h.model.enqueue(say('Second answer.'));
    const r = await runCli(
      ['chat', '--oracle', h.url, '--mnemonic-file', file, '--session', s!.sessionId.slice(0, 8)],
      { input: 'second\n', env: env() },
    );
    expect(r.stderr).toContain(`Switched to ${s!.sessionId}`);
    expect(r.stderr).toContain('you: first question');
    expect(r.stdout).toBe('Second answer.\n');
    expect((await h.app.runtime.store.listSessions(signer.did(), 10, 0)).total).toBe(1);
    const bad = await runCli(['chat', '--oracle', h.url, '--mnemonic-file', file, '--session', 'nope'], {
      input: 'x\n',
      env: env(),
    });
    expect(bad.code).toBe(6);
    expect(bad.stderr).toMatch(/^Error \[session_not_found\] /m);
  });

  it('/retry sends the last message again; the screen-only commands say so', async () => {
    h.model.enqueue(say('First try.'), say('Second try.'));
    const r = await runCli(['chat', '--oracle', h.url], { input: 'once more?\n/retry\n/copy\n', env: env() });
    expect(r.stdout).toBe('First try.\nSecond try.\n');
    const body = h.model.requests.at(-1)!.body as { messages: { role: string; content: unknown }[] };
    expect(JSON.stringify(body.messages.filter((m) => m.role === 'user').at(-1))).toContain('once more?');
    expect(r.stderr).toContain('Sending your last message again.');
    expect(r.stderr).toContain('This command works in the terminal chat only.');
    expect(r.code).toBe(0);
  });

  it('--json streams every event as a JSON line', async () => {
    h.model.enqueue(say('Hi there.'));
    const r = await runCli(['chat', '--json', '--oracle', h.url], { input: 'hello\n', env: env() });
    const events = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { event: string; id: number; data: unknown });
    expect(events[0]?.event).toBe('run');
    expect(events.at(-1)).toMatchObject({ event: 'done', data: { status: 'finished' } });
    expect(
      events
        .filter((e) => e.event === 'message')
        .map((e) => (e.data as { content: string }).content)
        .join(''),
    ).toBe('Hi there.');
  });

  it('resolves a DID through the registry (#api/#ws) and uses --mnemonic-file', async () => {
    const m = generateMnemonic();
    const file = join(home, 'mnemonic.txt');
    writeFileSync(file, m + '\n', { mode: 0o600 });
    h.model.enqueue(say('Resolved.'));
    const r = await runCli(['chat', '--oracle', h.oracleDid, '--registry', registryUrl, '--mnemonic-file', file], {
      input: 'hi\n/sessions\n',
      env: env(),
    });
    expect(r.stdout).toBe('Resolved.\n');
    // the session belongs to the mnemonic's identity
    const signer = await signerFromMnemonic(m);
    expect((await h.app.runtime.store.listSessions(signer.did(), 10, 0)).total).toBe(1);
    const missing = await runCli(
      ['chat', '--oracle', 'did:key:z6MkunknownunknownunknownunknownunknownunknownAB', '--registry', registryUrl],
      { env: env() },
    );
    expect(missing.stderr).toContain('domain_not_found');
    expect(missing.code).toBe(6);
  });

  it('finds the oracle of ./oracle.config.json on the PORT of ./.env', async () => {
    const proj = join(home, 'proj');
    mkdirSync(proj, { recursive: true });
    writeFileSync(join(proj, 'oracle.config.json'), JSON.stringify({ name: 'Test Oracle', oracleDid: h.oracleDid }));
    writeFileSync(join(proj, '.env'), `# local\nPORT=${new URL(h.url).port}\n`);
    h.model.enqueue(say('From the project.'));
    const r = await runCli(['chat'], { input: 'hi\n', env: env(), cwd: proj });
    expect(r.stdout).toBe('From the project.\n');
  });

  it('says clearly when the oracle has no model configured', async () => {
    const bare = await startHarness({ env: { LLM_BASE_URL: '' } });
    try {
      const r = await runCli(['chat', '--oracle', bare.url], { input: 'hi\n', env: env() });
      expect(r.stderr).toContain(
        'This oracle has no model configured: set LLM_BASE_URL, LLM_PROVIDER_API_KEY and the model',
      );
      // said once, in one wording
      expect(r.stderr.split('no model configured').length - 1).toBe(1);
      // docs/cli.md: the oracle cannot answer (its model is not there) is "unavailable", exit 9, in the `Error [code]
      // message` form
      expect(r.stderr).toMatch(/^Error \[model_not_configured\] This oracle has no model configured/m);
      expect(r.stderr).not.toMatch(/^error: /m);
      expect(r.code).toBe(9);
    } finally {
      await bare.close();
    }
  });

  it('says clearly when the oracle is unreachable, and when there is no oracle at all', async () => {
    const r = await runCli(['chat', '--oracle', 'http://127.0.0.1:9'], { input: 'hi\n', env: env() });
    expect(r.stderr).toMatch(/^Error \[oracle_unreachable\] Cannot reach the oracle at http:\/\/127\.0\.0\.1:9/m);
    expect(r.code).toBe(9);
    const none = await runCli(['chat'], { input: 'hi\n', env: env(), cwd: home });
    expect(none.stderr).toContain('[no_oracle]');
    expect(none.code).toBe(9);
  });

  it('payment required exits 8 against a priced runtime (credits plugin), with the claim in `Error [payment_required] …`', async () => {
    const priced = await startHarness({ config: { name: 'Priced Oracle', model: 'scripted-model', price: 2.5 } });
    try {
      expect(priced.lines).toContain('[boot] loaded: credits');
      const before = priced.model.requests.length;
      const r = await runCli(['chat', '--oracle', priced.url], { input: 'hello\n', env: env() });
      expect(r.code).toBe(8);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(
        /^Error \[payment_required\] Payment required: this oracle is paid per turn \(2\.5 credit\) and your message was not answered\.\n {2}Outstanding claim: claim-[0-9a-f-]+ — 2\.5 credit in all\.\n {2}Pay the claims with \/pay/m,
      );
      expect(priced.model.requests.length).toBe(before);
      const j = await runCli(['chat', '--json', '--oracle', priced.url], { input: 'hello\n', env: env() });
      expect(j.code).toBe(8);
      const failure = JSON.parse(j.stdout.trim().split('\n').at(-1)!) as {
        event: string;
        code: string;
        exitCode: number;
        claims: string[];
      };
      expect(failure).toMatchObject({ event: 'failure', code: 'payment_required', exitCode: 8 });
      expect(failure.claims).toHaveLength(1);
    } finally {
      await priced.close();
    }
  });

  it("a turn the model provider refuses exits 9 (the oracle's model is unavailable); the first failure's code wins", async () => {
    h.model.enqueue({ steps: [{ type: 'http_error', status: 401 }] }, say('Fine again.'));
    const r = await runCli(['chat', '--oracle', h.url], { input: 'one\ntwo\n', env: env() });
    expect(r.stderr).toMatch(/^Error \[provider_unauthorized\] The model provider refused the oracle's key/m);
    expect(r.stdout).toBe('Fine again.\n');
    expect(r.code).toBe(9);
  });
});
