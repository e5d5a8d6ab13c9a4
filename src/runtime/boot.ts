/**
 * Boot resolution (runtime.md, "Boot"): features, auto-detect from the
 * environment, hard dependencies, topological order, env validation, and the
 * exact log lines.
 */
import type { OracleConfig, OraclePlugin } from './plugin.ts';
import type { PluginsStatus } from '../lib/protocol/index.ts';
import { RUNTIME_VERSION } from '../lib/protocol/index.ts';
import { envValue, isBlank, parseEnv, shownValue } from '../lib/env.ts';

export interface BootLogger {
  info(line: string): void;
  error(line: string): void;
}

export const consoleBootLogger: BootLogger = {
  info: (l) => console.log(l),
  error: (l) => console.error(l),
};

/** A boot failure; its message is the exact `[boot-error] …` line. */
export class BootError extends Error {
  readonly line: string;
  constructor(line: string) {
    super(line);
    this.name = 'BootError';
    this.line = line;
  }
}

interface ResolvedPlugin {
  plugin: OraclePlugin<unknown>;
  env: unknown;
}

interface BootResult {
  ordered: ResolvedPlugin[];
  excluded: { plugin: string; reason: string }[];
}

/** The boot error of a plugin's variable; `value` (as shownValue gives it) when the variable is set. */
function envLine(name: string, variable: string, why: string, value?: string): string {
  return (
    `[boot-error] Plugin '${name}' env validation failed for '${variable}'${value ? ` = ${value}` : ''}: ${why}. ` +
    `Set '${variable}' or disable it: features: { ${name}: false }`
  );
}

/** Merges bundled and project plugins (same name: the project's wins). */
export function mergePlugins(
  bundled: OraclePlugin<unknown>[],
  own: OraclePlugin<unknown>[] = [],
): OraclePlugin<unknown>[] {
  const map = new Map<string, OraclePlugin<unknown>>();
  for (const p of bundled) map.set(p.name, p);
  for (const p of own) map.set(p.name, p);
  return [...map.values()];
}

export function resolvePlugins(
  all: OraclePlugin<unknown>[],
  features: Record<string, boolean>,
  env: Record<string, string | undefined>,
  config?: OracleConfig,
): BootResult {
  const byName = new Map(all.map((p) => [p.name, p]));
  for (const name of Object.keys(features)) {
    if (!byName.has(name) && features[name] === true)
      throw new BootError(
        `[boot-error] Plugin '${name}' is forced on by features but no such plugin exists. Remove it from features ` +
          `or add the plugin`,
      );
  }
  const excluded: { plugin: string; reason: string }[] = [];
  const enabled = new Set<string>();
  // 1. features, then auto-detect
  for (const p of all) {
    const reason = exclusion(p, features[p.name], env, config);
    if (reason === undefined) enabled.add(p.name);
    else excluded.push({ plugin: p.name, reason });
  }
  // 2. hard dependencies, to a fixed point
  dropUnmetDependencies(enabled, byName, features, excluded);
  // 3. topological order (cycles are boot errors)
  const order = topologicalOrder(all, enabled, byName);
  // 4. env validation with each plugin's schema
  const ordered = order.map((name) => withEnv(byName.get(name)!, env));
  return { ordered, excluded };
}

/** Why a plugin is left out (features, its detect, a blank required variable, off by default), or undefined. */
/** Whether features and env enable the plugin (its dependencies aside); a forced one lacking its env throws. */
export function wouldRun(
  p: OraclePlugin<unknown>,
  features: Record<string, boolean>,
  env: Record<string, string | undefined>,
  config: OracleConfig | undefined,
): boolean {
  return exclusion(p, features[p.name], env, config) === undefined;
}

function exclusion(
  p: OraclePlugin<unknown>,
  forced: boolean | undefined,
  env: Record<string, string | undefined>,
  config: OracleConfig | undefined,
): string | undefined {
  if (forced === false) return 'features';
  const d = config && p.detect ? p.detect(config) : undefined;
  if (d?.invalid) throw new BootError(envLine(p.name, d.invalid.field, d.invalid.why));
  if (d?.exclude !== undefined) {
    if (forced === true) throw new BootError(envLine(p.name, d.exclude, 'required but not set in oracle.config.json'));
    return d.exclude;
  }
  const missing = (p.requiredEnv ?? []).find((v) => isBlank(env[v]));
  if (missing !== undefined) {
    if (forced === true) throw new BootError(envLine(p.name, missing, 'required but blank'));
    return missing;
  }
  if (p.manifest.defaultState === 'off' && forced !== true) return 'defaultState off';
  return undefined;
}

/** Drops the plugins whose hard dependency is not enabled, until none is left (a forced one is a boot error). */
function dropUnmetDependencies(
  enabled: Set<string>,
  byName: Map<string, OraclePlugin<unknown>>,
  features: Record<string, boolean>,
  excluded: { plugin: string; reason: string }[],
): void {
  let changed = true;
  while (changed) {
    changed = false;
    for (const name of [...enabled]) {
      const dep = byName.get(name)!.manifest.dependsOn.find((d) => !enabled.has(d));
      if (dep === undefined) continue;
      if (features[name] === true)
        throw new BootError(
          `[boot-error] Plugin '${name}' depends on '${dep}', which is not enabled. Enable '${dep}' or disable ` +
            `it: features: { ${name}: false }`,
        );
      enabled.delete(name);
      excluded.push({ plugin: name, reason: `dependsOn ${dep}` });
      changed = true;
    }
  }
}

/** The enabled plugins, each after its dependencies, otherwise in the given order; a cycle is a boot error. */
function topologicalOrder(
  all: OraclePlugin<unknown>[],
  enabled: Set<string>,
  byName: Map<string, OraclePlugin<unknown>>,
): string[] {
  const order: string[] = [];
  const mark = new Map<string, 'temp' | 'done'>();
  const visit = (name: string, path: string[]) => {
    const m = mark.get(name);
    if (m === 'done') return;
    if (m === 'temp')
      throw new BootError(
        `[boot-error] Plugin dependency cycle: ${[...path.slice(path.indexOf(name)), name].join(' → ')}. Break the ` +
          `cycle or disable one: features: { ${name}: false }`,
      );
    mark.set(name, 'temp');
    for (const d of byName.get(name)!.manifest.dependsOn) visit(d, [...path, name]);
    mark.set(name, 'done');
    order.push(name);
  };
  for (const p of all) if (enabled.has(p.name)) visit(p.name, []);
  return order;
}

/**
 * A plugin with its env parsed by its schema through the one env rule (parseEnv: a blank variable is unset); a
 * failure is a boot error naming the variable; a start with nothing to do for that env is dropped (the plugin is
 * loaded at boot).
 */
function withEnv(plugin: OraclePlugin<unknown>, env: Record<string, string | undefined>): ResolvedPlugin {
  const startable = (parsed: unknown): OraclePlugin<unknown> =>
    plugin.start && plugin.startsWhen && !plugin.startsWhen(parsed) ? { ...plugin, start: undefined } : plugin;
  if (!plugin.envSchema) return { plugin: startable({}), env: {} };
  const r = parseEnv(plugin.envSchema, env);
  if (!r.success) {
    const issue = r.error.issues[0]!;
    const variable = String(issue.path[0] ?? '?');
    const value = envValue(env, variable);
    throw new BootError(envLine(plugin.name, variable, issue.message, value && shownValue(variable, value)));
  }
  return { plugin: startable(r.data), env: r.data };
}

export function logBoot(log: BootLogger, r: BootResult): void {
  log.info(`runtime v${RUNTIME_VERSION}`);
  for (const { plugin } of r.ordered) if (!plugin.start) log.info(`[boot] loaded: ${plugin.name}`);
  // one line per excluded plugin, whatever the reason (a blank variable, features, price, a dependency), so the
  // summary's count is the number of lines above it
  for (const e of r.excluded) log.info(`[boot] excluded: ${e.plugin} (${e.reason})`);
  if (r.excluded.length > 0)
    log.info(
      `[boot] excluded ${r.excluded.length} plugin(s): ` +
        `${r.excluded.map((e) => `${e.plugin} (${e.reason})`).join(', ')}`,
    );
}

export type PluginStatusListener = (e: {
  plugin: string;
  status: 'pending' | 'loaded' | 'failed';
  reason?: string;
}) => void;

/** Tracks loaded / pending / failed / excluded; starts background plugins. */
export class PluginStatusTracker {
  private readonly loaded: string[] = [];
  private readonly pending = new Set<string>();
  private readonly failed: { plugin: string; reason: string }[] = [];
  private readonly excluded: { plugin: string; reason: string }[];
  private readonly listeners = new Set<PluginStatusListener>();

  constructor(r: BootResult) {
    this.excluded = [...r.excluded];
    for (const { plugin } of r.ordered) {
      if (plugin.start) this.pending.add(plugin.name);
      else this.loaded.push(plugin.name);
    }
  }

  status(): PluginsStatus {
    return {
      loaded: [...this.loaded],
      pending: [...this.pending],
      failed: [...this.failed],
      excluded: [...this.excluded],
    };
  }

  isActive(name: string): boolean {
    return this.loaded.includes(name);
  }

  settled(): boolean {
    return this.pending.size === 0;
  }

  subscribe(l: PluginStatusListener): () => void {
    this.listeners.add(l);
    return () => this.listeners.delete(l);
  }

  /** Runs each start in the background; never throws, never blocks. */
  startBackground(items: { name: string; start: () => Promise<void>; timeoutMs: number }[], log: BootLogger): void {
    for (const it of items) {
      for (const l of this.listeners) l({ plugin: it.name, status: 'pending' });
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, rej) => {
        timer = setTimeout(() => rej(new Error(`start timed out after ${it.timeoutMs} ms`)), it.timeoutMs);
        timer.unref();
      });
      Promise.race([Promise.resolve().then(it.start), timeout])
        .then(() => {
          this.pending.delete(it.name);
          this.loaded.push(it.name);
          log.info(`[plugin] ${it.name} pending → loaded`);
          for (const l of this.listeners) l({ plugin: it.name, status: 'loaded' });
        })
        .catch((e: unknown) => {
          const reason = e instanceof Error ? e.message : String(e);
          this.pending.delete(it.name);
          this.failed.push({ plugin: it.name, reason });
          log.error(`[plugin] ${it.name} pending → failed (${reason})`);
          for (const l of this.listeners) l({ plugin: it.name, status: 'failed', reason });
        })
        .finally(() => clearTimeout(timer));
    }
  }
}
