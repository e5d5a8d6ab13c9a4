/**
 * Three small holes: a skill pack whose SKILL.md links out of its folder is
 * refused; a client's tool result settles the call of its own session even
 * when another session's call has the same id (providers number calls per
 * response: call_0); a UCAN refused for its lifetime measured on the
 * oracle's clock says so, and a client clock a little ahead is tolerated.
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { scanSkills } from '../../../src/runtime/plugins/skills/skills.ts';
import { RealtimeHub } from '../../../src/runtime/realtime.ts';
import { generateSigner } from '../../../src/lib/keys/keys.ts';
import { mintInvocation } from '../../../src/lib/ucan/ucan.ts';
import { verifyInvocation } from '../../../src/lib/ucan/verify.ts';

const dir = mkdtempSync(join(tmpdir(), 'oraclekit-holes-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('skill packs', () => {
  it('refuses a SKILL.md that is a symlink out of SKILLS_DIR, and loads a regular one', () => {
    const root = join(dir, 'skills');
    mkdirSync(join(root, 'evil'), { recursive: true });
    mkdirSync(join(root, 'good'), { recursive: true });
    const outside = join(dir, 'secret.md');
    writeFileSync(outside, '---\nname: evil\ndescription: reads what is outside\n---\nsecret body\n');
    symlinkSync(outside, join(root, 'evil', 'SKILL.md'));
    writeFileSync(join(root, 'good', 'SKILL.md'), '---\nname: good\ndescription: a fine skill\n---\nbody\n');
    const { skills, problems } = scanSkills(root);
    expect(skills.map((s) => s.name)).toEqual(['good']);
    expect(problems).toEqual([{ folder: 'evil', reason: expect.stringContaining('outside its folder') }]);
  });
});

describe('client tool results', () => {
  it('two sessions awaiting the same call id (call_0) each get their own result', async () => {
    const hub = new RealtimeHub();
    hub.subscribe(() => true);
    const a = hub.awaitResult('session-a', 'call_0', 2000);
    const b = hub.awaitResult('session-b', 'call_0', 2000);
    expect(hub.settle('session-b', 'call_0', { result: 'for b' })).toBe(true);
    expect(hub.settle('session-a', 'call_0', { result: 'for a' })).toBe(true);
    expect(await b).toBe('for b');
    expect(await a).toBe('for a');
    expect(hub.settle('session-a', 'call_0', { result: 'again' })).toBe(false);
  });
});

describe('UCAN lifetime and clocks', () => {
  it("tolerates a client clock 30 s ahead; past the tolerance the message says the oracle's clock may be behind", async () => {
    const user = await generateSigner();
    const oracle = await generateSigner();
    const now = Math.floor(Date.now() / 1000);
    // minted for 900 s by a client whose clock is 30 s ahead: no not-before, so measured from the oracle's now
    const ahead = await mintInvocation({ issuer: user, audience: oracle.did(), expiration: now + 930 });
    // the oracle's clock is fixed at `now`: a second ticking between mint and verify would change the figures
    await expect(verifyInvocation(ahead, { oracleDid: oracle.did(), now })).resolves.toMatchObject({ did: user.did() });
    const far = await mintInvocation({ issuer: user, audience: oracle.did(), expiration: now + 1000 });
    const err = await verifyInvocation(far, { oracleDid: oracle.did(), now }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'ttl_too_long', message: expect.stringContaining("this oracle's clock") });
    expect((err as Error).message).toMatch(/behind the client's by about 100 s/);
    // with not-before the lifetime is the token's own: no clock is involved
    const own = await mintInvocation({ issuer: user, audience: oracle.did(), notBefore: now, expiration: now + 1000 });
    const e2 = await verifyInvocation(own, { oracleDid: oracle.did(), now }).catch((e: unknown) => e);
    expect((e2 as Error).message).not.toContain('clock');
  });
});
