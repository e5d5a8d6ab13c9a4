/**
 * `oraclekit new` at a person's 80x24 terminal (tmux, CI unset), with no name: it asks for one and offers a usable
 * form of "Bad Name"; the price prompt names its unit and says what was wrong with an answer; a generated mnemonic
 * stays on the screen until Enter; it says when it starts the local daemon; "Next:" lists exactly the commands this
 * setup needs (a model on this machine: no key line).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BIN, runCli } from '../helpers/cli.ts';
import { freePort } from '../helpers/loopback.ts';
import { hasTmux, Tmux } from '../helpers/tmux.ts';
import { scaffoldEnv } from '../helpers/scaffold-env.ts';

const home = mkdtempSync(join(tmpdir(), 'ok-new-tmux-home-'));
const work = mkdtempSync(join(tmpdir(), 'ok-new-tmux-work-'));
const env = scaffoldEnv(home);
const t = new Tmux(`ok-new-tmux-${process.pid}`, 'new');

afterAll(async () => {
  if (hasTmux) t.kill();
  await runCli(['daemon', 'stop', '--grace', '1'], { env });
  rmSync(home, { recursive: true, force: true });
  rmSync(work, { recursive: true, force: true });
}, 60_000);

/** The visible screen only (no scroll-back): what the person sees now, wrapped lines joined. */
const visible = () => t.run('capture-pane', '-p', '-J', '-t', t.name);

describe.skipIf(!hasTmux)('oraclekit new on an 80x24 terminal', () => {
  it('asks for a name, offers bad-name for "Bad Name", explains a refused price, holds the new mnemonic until Enter, says it starts the daemon, and ends with the commands to run', async () => {
    const port = await freePort();
    const vars = Object.entries(env)
      .map(([k, v]) => `${k}='${v}'`)
      .join(' ');
    t.start(
      `env -u CI ${vars} NO_COLOR=1 '${process.execPath}' '${BIN}' new --auth mnemonic --generate --network local --no-install --no-git --url http://localhost:${port} --llm-base-url http://127.0.0.1:11434/v1; echo "EXIT=$?"; sleep 600`,
      { cwd: work, width: 80, height: 24 },
    );
    const prompt = (text: string) => t.until((s) => s.includes(`? ${text}`), `the prompt "${text}"`, 30_000);
    await prompt('Project name');
    t.line('Bad Name');
    await t.until((s) => /\? Package name \(?bad-name\)?/.test(s), 'the usable name offered');
    t.line('');
    await prompt('Oracle name');
    t.line('');
    await prompt('Description');
    t.line('');
    await prompt('Price in credits per turn (0 = free)');
    t.line('0.0000001');
    await t.until((s) => s.includes('0.0000001 has 7 decimals; at most 6'), 'too many decimals refused');
    t.keys('C-u');
    t.line('abc');
    await t.until((s) => s.includes('"abc" is not a number: credits per turn'), 'not a number refused');
    t.keys('C-u');
    t.line('0.25');
    await prompt('Model (OpenAI-compatible id)');
    t.line('');
    // the new mnemonic, and the question that keeps it on the screen
    await t.until((s) => s.includes('Written it down? (Enter)'), 'the pause after the mnemonic', 30_000);
    const shown = visible();
    expect(shown).toContain('A new recovery phrase (BIP39 mnemonic) was generated');
    const words = JSON.parse(readFileSync(join(home, 'config/identity.json'), 'utf8')).mnemonic as string;
    expect(shown.replace(/\s+/g, ' ')).toContain(words);
    await new Promise((r) => setTimeout(r, 500));
    expect(t.screen()).not.toContain('Registered'); // nothing more until Enter
    t.line('');
    const end = await t.until((s) => s.includes('EXIT='), 'the end', 60_000);
    expect(end).toContain('EXIT=0');
    expect(end).toMatch(/started the local daemon: pid \d+ at http:\/\/127\.0\.0\.1:\d+/);
    const next = end.slice(end.indexOf('Next:'), end.indexOf('EXIT='));
    expect(next.trim().split('\n')).toEqual([
      'Next:',
      '  cd bad-name',
      '  node --version    # Node.js 22 (22.22.2 or later) or 24 (24.15 or later)',
      '  npm install',
      '  npm test',
      '  npm start',
      '  npm run chat      # in a second terminal, while it runs',
    ]);
    expect(JSON.parse(readFileSync(join(work, 'bad-name/oracle.config.json'), 'utf8'))).toMatchObject({
      name: 'bad-name',
      price: 0.25,
    });
    expect(existsSync(join(work, 'Bad Name'))).toBe(false);
  }, 120_000);
});
