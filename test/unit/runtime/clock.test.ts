/**
 * The runtime reads time from one clock (the `now` option): history timestamps, a credential's expiry and the
 * per-user turn window all follow it, so a test moves time instead of waiting for it.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createOracle } from '../../../src/runtime/oracle.ts';
import { scriptedModel } from '../../../src/testing.ts';
import { didFromMnemonic, generateMnemonic, generateSigner } from '../../../src/lib/keys/keys.ts';
import { mintInvocation } from '../../../src/lib/ucan/ucan.ts';

const dir = mkdtempSync(join(tmpdir(), 'oraclekit-clock-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const silent = { info: () => {}, error: () => {} };

describe("the runtime's clock", () => {
  it('history timestamps and credential expiry follow the injected clock', async () => {
    let clock = Date.parse('2031-03-04T05:06:07.000Z');
    const mnemonic = generateMnemonic();
    const model = scriptedModel();
    const oracle = createOracle({
      config: { name: 'Clock' },
      dbPath: join(dir, 'clock.db'),
      env: {},
      model,
      logger: silent,
      signingMnemonic: mnemonic,
      now: () => clock,
    });
    const rt = oracle.runtime;
    await rt.storeReady;
    await rt.loadSigningKey(mnemonic);

    // a session's creation time is the clock's, not the machine's
    const user = await generateSigner();
    const s = await rt.store.createSession(user.did());
    expect(s.createdAt).toBe('2031-03-04T05:06:07.000Z');

    // an invocation valid for 300 s of the clock, refused once the clock passes its expiry
    const seconds = Math.floor(clock / 1000);
    const token = await mintInvocation({
      issuer: user,
      audience: didFromMnemonic(mnemonic),
      notBefore: seconds,
      expiration: seconds + 300,
    });
    await expect(rt.auth.authenticate({ invocation: token })).resolves.toMatchObject({ did: user.did() });
    clock += 301_000;
    await expect(rt.auth.authenticate({ invocation: token })).rejects.toMatchObject({ code: 'expired' });

    // a message's time is the clock's
    clock += 60_000;
    model.enqueue({ steps: [{ type: 'text', text: 'two' }] });
    expect(await (await rt.startTurn(user.did(), s.sessionId, { message: 'c' })).done).toBe('finished');
    const rows = await rt.store.history(s.sessionId);
    expect(rows.at(-1)?.createdAt).toBe(new Date(clock).toISOString());
    await oracle.close();
  });
});
