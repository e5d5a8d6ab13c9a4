import { describe, expect, it } from 'vitest';
import { OracleRuntime } from '../../../../../src/runtime/runtime.ts';
import { BootError } from '../../../../../src/runtime/boot.ts';
import { creditsPlugin, userPreferencesPlugin } from '../../../../../src/runtime/plugins/index.ts';
import type { OracleConfig } from '../../../../../src/runtime/plugin.ts';

function boot(config: Partial<OracleConfig>, features?: Record<string, boolean>, env: Record<string, string> = {}) {
  const lines: string[] = [];
  const rt = new OracleRuntime({
    config: { name: 't', oracleDid: 'did:key:z6Mkoracle', ...config },
    dbPath: ':memory:',
    env,
    features,
    logger: { info: (l) => lines.push(l), error: (l) => lines.push(l) },
    bundledPlugins: [userPreferencesPlugin, creditsPlugin],
  });
  return { rt, lines };
}

describe('credits boot rules', () => {
  it('is enabled by a price > 0 and excluded without one', async () => {
    const on = boot({ price: 1 });
    expect(on.rt.status().loaded).toContain('credits');
    expect(on.lines).toContain('[boot] loaded: credits');
    await on.rt.close();
    for (const price of [undefined, 0]) {
      const off = boot({ price });
      expect(off.rt.status().excluded).toEqual([{ plugin: 'credits', reason: 'price' }]);
      expect(off.lines).toContain('[boot] excluded 1 plugin(s): credits (price)');
      await off.rt.close();
    }
  });

  it('a negative price, or credits forced on without a price, is a boot error with the fix', () => {
    expect(() => boot({ price: -1 })).toThrow(BootError);
    expect(() => boot({ price: -1 })).toThrow(
      "[boot-error] Plugin 'credits' env validation failed for 'price': price must be a number ≥ 0 in oracle.config.json, got -1. Set 'price' or disable it: features: { credits: false }",
    );
    expect(() => boot({}, { credits: true })).toThrow(
      "[boot-error] Plugin 'credits' env validation failed for 'price': required but not set in oracle.config.json. Set 'price' or disable it: features: { credits: false }",
    );
    expect(() => boot({ price: 1 }, {}, { CREDITS_DENOM: '9 bad' })).toThrow(
      /^\[boot-error\] Plugin 'credits' env validation failed for 'CREDITS_DENOM' = "9 bad": /,
    );
    const off = boot({ price: -1 }, { credits: false });
    expect(off.rt.status().excluded).toEqual([{ plugin: 'credits', reason: 'features' }]);
  });
});
