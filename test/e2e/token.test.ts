/**
 * `oraclekit token`: the curl session of docs/protocol.md ("Calling the API by
 * hand"), copied from the doc by the test and run by bash with the real curl
 * against a real oracle runtime, with the token the CLI prints; every request
 * answers 2xx and the message streams. An expired or altered token gets 401.
 */
import { spawn } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, ROOT, runCli } from '../helpers/cli.ts';
import { startHarness, type Harness } from '../helpers/runtime-harness.ts';
import { say } from '../helpers/scripted-model-server.ts';

const home = mkdtempSync(join(tmpdir(), 'okit-token-'));
const env = { ORACLEKIT_HOME: home, ORACLEKIT_MNEMONIC: '', CI: 'true' };
let h: Harness;
let did: string;

/** The doc's curl session: the sh block of the section "Calling the API by hand". */
function docSession(): string {
  const doc = readFileSync(join(ROOT, 'docs/protocol.md'), 'utf8');
  const section = doc.slice(doc.indexOf('### Calling the API by hand'));
  const m = /```sh\n([\s\S]*?)```/.exec(section);
  if (!m) throw new Error('docs/protocol.md has no sh block under "Calling the API by hand"');
  return m[1]!;
}

/**
 * Runs a bash script with `oraclekit` on PATH (the built CLI) and curl printing each reply's status after it
 * (`HTTP <code>`): the real curl, only its output annotated.
 */
async function bash(script: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const bin = join(home, 'bin');
  mkdirSync(bin, { recursive: true });
  writeFileSync(join(bin, 'oraclekit'), `#!/bin/sh\nexec '${process.execPath}' '${BIN}' "$@"\n`);
  chmodSync(join(bin, 'oraclekit'), 0o755);
  const prelude = `set -euo pipefail\ncurl() { command curl "$@" -w '\\nHTTP %{http_code}\\n'; }\n`;
  // asynchronous: the oracle answering curl runs in this process
  const child = spawn('bash', ['-c', prelude + script], {
    cwd: home,
    env: { ...process.env, ...env, PATH: `${bin}:${process.env.PATH}` },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const timer = setTimeout(() => child.kill('SIGKILL'), 50_000);
  const code = await new Promise<number>((ok) => child.on('close', (c) => ok(c ?? -1)));
  clearTimeout(timer);
  return { code, stdout, stderr };
}

beforeAll(async () => {
  h = await startHarness();
  const made = await runCli(['login', '--auth', 'mnemonic', '--generate', '--json'], { env });
  expect(made.code, made.stderr).toBe(0);
  did = JSON.parse(made.stdout).did as string;
});
afterAll(async () => {
  await h?.close();
  rmSync(home, { recursive: true, force: true });
});

describe('oraclekit token', () => {
  it("the doc's curl session runs against a real oracle with the printed token", async () => {
    // every sub-shell curl (the session id) is annotated too: jq reads the first line, the JSON
    h.model.enqueue(say('Hello by hand.'));
    const script = docSession()
      .replace('ORACLE=http://localhost:3000', `ORACLE=${h.url}`)
      .replace('| jq -r .sessionId', '| head -n 1 | jq -r .sessionId');
    const r = await bash(script);
    expect(r.code, r.stderr + r.stdout).toBe(0);
    const statuses = [...r.stdout.matchAll(/^HTTP (\d+)$/gm)].map((m) => m[1]);
    expect(statuses).toEqual(['200', '200', '200']); // the list, the streamed message, the history
    expect(r.stdout).toContain('"title":"by hand"');
    expect(r.stdout).toContain('event: done');
    expect(r.stdout).toContain('Hello by hand.');
    expect(r.stdout).toMatch(/"messages":\[/);
  }, 60_000);

  it('an expired token and an altered one get 401 with the check that failed', async () => {
    const r = await bash(`
      ORACLE=${h.url}
      TOKEN=$(oraclekit token --oracle "$ORACLE" --ttl 4)
      curl -s -H "Authorization: Bearer $TOKEN" -H 'X-Auth-Type: ucan' "$ORACLE/sessions"
      sleep 5
      curl -s -H "Authorization: Bearer $TOKEN" -H 'X-Auth-Type: ucan' "$ORACLE/sessions"
      # one character of the signed bytes changed
      C=x; [ "\${TOKEN:40:1}" = x ] && C=y
      curl -s -H "Authorization: Bearer \${TOKEN:0:40}$C\${TOKEN:41}" -H 'X-Auth-Type: ucan' "$ORACLE/sessions"
    `);
    expect(r.code, r.stderr).toBe(0);
    const statuses = [...r.stdout.matchAll(/^HTTP (\d+)$/gm)].map((m) => m[1]);
    expect(statuses).toEqual(['200', '401', '401']);
    expect(r.stdout).toContain('"code":"expired"');
  }, 40_000);

  it('--json names the oracle, the issuer and the expiry; the token is for that oracle', async () => {
    const r = await runCli(['token', '--oracle', h.url, '--ttl', '120', '--json'], { env });
    expect(r.code, r.stderr).toBe(0);
    const j = JSON.parse(r.stdout);
    expect(j).toMatchObject({ authType: 'ucan', oracleDid: h.oracleDid, url: h.url, issuer: did, ttlSeconds: 120 });
    expect(j.authorization).toBe(`Bearer ${j.token}`);
    const left = (Date.parse(j.expiresAt) - Date.now()) / 1000;
    expect(left).toBeGreaterThan(100);
    expect(left).toBeLessThanOrEqual(120);
    const res = await fetch(`${h.url}/sessions`, {
      headers: { authorization: j.authorization, 'x-auth-type': 'ucan' },
    });
    expect(res.status).toBe(200);
  });

  it('refuses a lifetime the oracle would refuse, and works only when signed in', async () => {
    const long = await runCli(['token', '--oracle', h.url, '--ttl', '901'], { env });
    expect(long.code).not.toBe(0);
    expect(long.stderr).toContain('ttl');
    const none = await runCli(['token', '--oracle', h.url, '--json'], {
      env: { ...env, ORACLEKIT_HOME: join(home, 'nobody') },
    });
    expect(none.code).not.toBe(0);
    expect(JSON.parse(none.stderr)).toMatchObject({ code: 'not_logged_in' });
    const down = await runCli(['token', '--oracle', 'http://127.0.0.1:1', '--json'], { env });
    expect(down.code).toBe(9);
    expect(JSON.parse(down.stderr).message).toContain('http://127.0.0.1:1');
  });
});
