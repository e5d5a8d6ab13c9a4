// @vitest-environment jsdom
/**
 * useLiveAgent (`oraclekit/react/live-agent`) rendered in jsdom against a real
 * runtime: the IXO return shape, and a browser that cannot encrypt a call end
 * to end (jsdom has no insertable streams) or has no microphone gets a clear
 * error before any call is created, so nothing is charged or left pending.
 */
import { act, cleanup, renderHook, waitFor } from '@testing-library/react';
import type { ReactNode } from 'react';
import { Room } from 'livekit-client';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { OraclesProvider, type OraclesWallet } from '../../../src/client/react/index.ts';
import { LiveAgentError, useLiveAgent } from '../../../src/client/react/live-agent.ts';
import { generateSigner } from '../../../src/lib/keys/keys.ts';
import { startHarness, type Harness } from '../../helpers/runtime-harness.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
// unmount what each test rendered (Testing Library's automatic cleanup needs a global afterEach)
afterEach(cleanup);
afterAll(async () => {
  await h?.close();
});

async function setup() {
  const signer = await generateSigner();
  const wallet: OraclesWallet = { did: signer.did(), signer, matrix: { baseUrl: '', userId: '@u:x', accessToken: '' } };
  const wrapper = ({ children }: { children: ReactNode }) => (
    <OraclesProvider initialWallet={wallet} transactSignX={async () => ({ code: 0 })}>
      {children}
    </OraclesProvider>
  );
  const hook = renderHook(() => useLiveAgent(h.oracleDid, { overrides: { baseUrl: h.url } }), { wrapper });
  await waitFor(() => expect(hook.result.current.isConfigReady).toBe(true));
  return { hook, signer };
}

describe('useLiveAgent', () => {
  it('has the IXO return shape, idle', async () => {
    const { hook } = await setup();
    const r = hook.result.current;
    expect(r.room).toBeInstanceOf(Room);
    expect(typeof r.callAgent).toBe('function');
    expect(typeof r.endCall).toBe('function');
    expect(r).toMatchObject({
      isCalling: false,
      isConnecting: false,
      isReady: false,
      sessionStarted: false,
      sessionViewVisible: false,
      callId: undefined,
    });
  });

  it('refuses a call in a browser without end-to-end encryption, before creating it', async () => {
    const { hook, signer } = await setup();
    let err: unknown;
    await act(async () => {
      err = await hook.result.current.callAgent({ callType: 'audio', sessionId: 'any' }).catch((e: unknown) => e);
    });
    expect(err).toBeInstanceOf(LiveAgentError);
    expect(err).toMatchObject({ code: 'e2ee_unsupported' });
    expect((err as Error).message).toMatch(/cannot encrypt a call end to end/);
    expect(hook.result.current.error).toBe(err);
    expect(hook.result.current.isCalling).toBe(false);
    // nothing was created for this user
    const { OracleClient, listCalls } = await import('../../../src/client/index.ts');
    const c = await OracleClient.connect({ baseUrl: h.url, signer });
    expect((await listCalls(c)).total).toBe(0);
  });
});
