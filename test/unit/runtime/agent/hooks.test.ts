import { describe, expect, it } from 'vitest';
import { runHook, type ActivePlugin } from '../../../../src/runtime/agent/index.ts';
import type { OraclePlugin, PluginContext } from '../../../../src/runtime/plugin.ts';

const plugin = (name: string, extra: Partial<OraclePlugin<unknown>> = {}): ActivePlugin => ({
  plugin: { name, manifest: { visibility: 'always' }, ...extra } as unknown as OraclePlugin<unknown>,
  ctx: { env: { name } } as unknown as PluginContext<unknown>,
});

describe('runHook', () => {
  it('collects what each plugin returns, in boot order, leaving out undefined', async () => {
    const active = [
      plugin('a', { systemPrompt: () => 'A' }),
      plugin('b'),
      plugin('c', { systemPrompt: () => undefined }),
      plugin('d', { systemPrompt: (_s, ctx) => `D:${(ctx.env as { name: string }).name}` }),
    ];
    expect(await runHook(active, ({ plugin: p, ctx }) => p.systemPrompt?.({}, ctx))).toEqual(['A', 'D:d']);
  });

  it('awaits each hook before calling the next', async () => {
    const seen: string[] = [];
    const slow = (name: string, ms: number) => async () => {
      await new Promise((r) => setTimeout(r, ms));
      seen.push(name);
    };
    await runHook([plugin('a'), plugin('b'), plugin('c')], ({ plugin: p }) =>
      p.name === 'a' ? slow('a', 30)() : p.name === 'b' ? void seen.push('b') : slow('c', 1)(),
    );
    expect(seen).toEqual(['a', 'b', 'c']);
  });

  it('with an initial value, threads it through the plugins (a defined result replaces it, null included)', async () => {
    const active = [plugin('a'), plugin('b'), plugin('c')];
    const step: Record<string, (v: unknown) => unknown> = {
      a: (v) => `${String(v)}+a`,
      b: () => undefined,
      c: async (v) => `${String(v)}+c`,
    };
    expect(await runHook(active, ({ plugin: p }, v) => step[p.name]!(v), 'in')).toBe('in+a+c');
    expect(await runHook(active, () => undefined, 'same')).toBe('same');
    expect(await runHook([plugin('a')], () => null, 'x' as unknown)).toBeNull();
  });

  it('a hook that throws stops the loop and rejects with its error', async () => {
    const seen: string[] = [];
    const boom = new Error('boom');
    const run = runHook([plugin('a'), plugin('b'), plugin('c')], ({ plugin: p }) => {
      seen.push(p.name);
      if (p.name === 'b') throw boom;
    });
    await expect(run).rejects.toBe(boom);
    expect(seen).toEqual(['a', 'b']);
  });
});
