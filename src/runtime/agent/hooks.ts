/**
 * The one loop over the plugins' hooks: each active plugin in boot order,
 * one after the other, each awaited before the next (a hook sees what the
 * previous one did). A hook that throws stops the loop and the error goes to
 * the caller, as a hand-written loop would.
 */
import type { OraclePlugin, PluginContext } from '../plugin.ts';

/** An active plugin with its context (AgentDeps.plugins, OracleRuntime.activePlugins). */
export interface ActivePlugin {
  plugin: OraclePlugin<unknown>;
  ctx: PluginContext<unknown>;
}

type Defined<T> = Exclude<T, undefined | void>;

/**
 * Calls `call` for each plugin and returns what the calls returned, in order,
 * leaving out `undefined` (a plugin without the hook, a hook with nothing to
 * say):
 *
 *     const prompts = await runHook(active, ({ plugin, ctx }) => plugin.systemPrompt?.(state, ctx));
 *
 * With `initial`, threads a value through the plugins instead: each call gets
 * the value so far and a defined result replaces it; returns the last value:
 *
 *     const input = await runHook(active, ({ plugin }, inp) => plugin.middleware?.beforeTool?.(turn, { toolName, input:
 * inp }), toolInput);
 */
export function runHook<T>(
  active: readonly ActivePlugin[],
  call: (p: ActivePlugin) => T | PromiseLike<T>,
): Promise<Defined<Awaited<T>>[]>;
export function runHook<V>(
  active: readonly ActivePlugin[],
  call: (p: ActivePlugin, value: V) => unknown,
  initial: V,
): Promise<V>;
export async function runHook(
  active: readonly ActivePlugin[],
  call: (p: ActivePlugin, value?: unknown) => unknown,
  ...initial: unknown[]
): Promise<unknown> {
  const threading = initial.length > 0;
  let value = initial[0];
  const out: unknown[] = [];
  for (const p of active) {
    let r = call(p, value);
    if (r !== null && typeof r === 'object' && typeof (r as PromiseLike<unknown>).then === 'function') r = await r;
    if (r === undefined) continue;
    if (threading) value = r;
    else out.push(r);
  }
  return threading ? value : out;
}
