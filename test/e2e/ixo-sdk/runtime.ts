/**
 * A runtime of this checkout for the ixo-sdk suite: test/helpers/runtime-harness.ts
 * (createOracleApp + the scripted model server on 127.0.0.1) behind the
 * recording proxy, registered with the loopback indexer.
 */
import { startHarness, type Harness } from '../../helpers/runtime-harness.ts';
import { say, type ChatRequestBody, type Script } from '../../helpers/scripted-model-server.ts';
import { startProxy, type Proxy } from './proxy.ts';
import type { Indexer } from './sdk.ts';
import type { Wallet } from './wallet.ts';

export interface IxoRuntime {
  harness: Harness;
  proxy: Proxy;
  oracleDid: string;
  /** The URL the SDK is given (the proxy's). */
  baseUrl: string;
  /**
   * The model's answers to a user message, one script per model step. Keyed
   * by the message so a test that fails early leaves nothing queued for the next.
   */
  script(message: string, ...steps: Script[]): void;
  /** Creates a session for the wallet's user straight on the runtime (not through the SDK). */
  createSession(wallet: Wallet, title?: string): Promise<string>;
  close(): Promise<void>;
}

export async function startIxoRuntime(indexer: Indexer, env: Record<string, string> = {}): Promise<IxoRuntime> {
  const harness = await startHarness({ env });
  const proxy = await startProxy(harness.url);
  indexer.oracles.set(harness.oracleDid, proxy.url);
  const scripts = new Map<string, Script[]>();
  harness.model.fallback = (body: ChatRequestBody) => {
    const user = [...body.messages].reverse().find((m) => m.role === 'user');
    const text = typeof user?.content === 'string' ? user.content : JSON.stringify(user?.content ?? '');
    for (const [message, queue] of scripts) if (text.includes(message) && queue.length) return queue.shift()!;
    return say(`(no script for ${JSON.stringify(text)})`);
  };
  return {
    harness,
    script(message, ...steps) {
      scripts.set(message, [...(scripts.get(message) ?? []), ...steps]);
    },
    proxy,
    oracleDid: harness.oracleDid,
    baseUrl: proxy.url,
    async createSession(wallet, title = 'ixo-sdk') {
      const inv = await wallet.createInvocation(harness.oracleDid);
      const res = await fetch(`${harness.url}/sessions`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${inv.serialized}`,
          'x-auth-type': 'ucan',
          'content-type': 'application/json',
        },
        body: JSON.stringify({ title }),
      });
      const body = (await res.json()) as { sessionId?: string };
      if (res.status !== 201 || !body.sessionId)
        throw new Error(`POST /sessions ${res.status} ${JSON.stringify(body)}`);
      return body.sessionId;
    },
    async close() {
      indexer.oracles.delete(harness.oracleDid);
      await proxy.close();
      await harness.close();
    },
  };
}

/** The replies the SDK got with status 401 (from the `since`-th exchange on), as `METHOD path → code`. */
export const unauthorized = (p: Proxy, since = 0): string[] =>
  p.log
    .slice(since)
    .filter((e) => e.status === 401)
    .map((e) => `${e.method} ${e.path} → ${e.code}`);
