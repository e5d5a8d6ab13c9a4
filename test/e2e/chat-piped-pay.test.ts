/**
 * `/pay` in the piped chat: against a runtime with the credits
 * plugin and a price, a message is refused with 402, a `/pay` line pays the
 * outstanding claim with the CLI's identity (the line is the consent; the
 * price and the claims are shown on stderr), and the next message is answered.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.ts';
import { startHarness, type Harness } from '../helpers/runtime-harness.ts';
import { say } from '../helpers/scripted-model-server.ts';

let h: Harness;
let home: string;
beforeAll(async () => {
  h = await startHarness({ config: { name: 'Priced Oracle', model: 'scripted-model', price: 2.5 } });
  home = mkdtempSync(join(tmpdir(), 'oraclekit-chat-pay-'));
});
afterAll(async () => {
  await h?.close();
  rmSync(home, { recursive: true, force: true });
});

describe('oraclekit chat (piped) on a paid oracle', () => {
  it('402, then a /pay line pays what it shows, then the message is answered', async () => {
    h.model.enqueue(say('Answered after paying.'));
    const r = await runCli(['chat', '--oracle', h.url], {
      input: 'a paid question\n/pay\na paid question\n',
      env: { ORACLEKIT_HOME: home, CI: '1' },
    });
    expect(r.stderr).toMatch(/Payment required: this oracle is paid per turn \(2\.5 credit\)/);
    expect(r.stderr).toMatch(/Outstanding claim: claim-/);
    expect(r.stderr).toContain('This oracle costs 2.5 credit per turn.');
    expect(r.stderr).toMatch(/Paid 2\.5 credit \(payment \S+\) for 1 claim\./);
    expect(r.stdout).toBe('Answered after paying.\n');
    expect(r.code).toBe(0); // the payment cured the 402: the script got its answer
    expect(h.model.requests).toHaveLength(1);
  });

  it('/pay with nothing owed says so and pays nothing', async () => {
    const r = await runCli(['chat', '--oracle', h.url, '--json'], {
      input: '/pay\n',
      env: { ORACLEKIT_HOME: home, CI: '1' },
    });
    const lines = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { event: string; lines: string[] });
    expect(lines).toEqual([
      {
        event: 'command',
        command: '/pay',
        lines: ['This oracle costs 2.5 credit per turn.', expect.stringMatching(/^Nothing to pay/)],
      },
    ]);
  });
});
