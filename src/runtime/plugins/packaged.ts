/**
 * Plugins whose weight is paid only by the oracles that use them (docs/runtime.md, "Plugins in packages of their
 * own"): a plugin shipped as a package of its own (calls), or a bundled plugin whose heavy dependency is an optional
 * package (the MCP plugins and the MCP SDK). The runtime uses each when its package is installed where the runtime's
 * own files resolve it (a project's node_modules, or beside a global install), and boots without it otherwise: the
 * plugin is excluded with one boot line naming the package to add, and its routes answer plugin_not_installed naming
 * the package. A bundled plugin is left out so only when it would run (its env set): unconfigured, it is excluded
 * for its env as before and no line names the package.
 */
import { createRequire } from 'node:module';
import type { AnyOraclePlugin } from '../plugin.ts';
import { BootError } from '../boot.ts';

export interface PackagedPlugin {
  /** The plugin's name (features, boot lines, status). */
  name: string;
  /** The npm package that ships it. */
  pkg: string;
  /** The export of the package that is the plugin; none for a bundled plugin that only needs the package. */
  exportName?: string;
  /** What it gives an oracle, for the boot line. */
  what: string;
  /** The route prefixes it serves: without the package they answer plugin_not_installed. */
  routes: string[];
}

export const PACKAGED_PLUGINS: readonly PackagedPlugin[] = [
  {
    name: 'calls',
    pkg: '@oraclekit/calls',
    exportName: 'callsPlugin',
    what: 'live voice and video calls',
    routes: ['/calls'],
  },
  ...(
    [
      ['memory', "memory's MCP tools and routes (MEMORY_MCP_URL)", ['/memory-engine']],
      ['firecrawl', "firecrawl's MCP tools (FIRECRAWL_MCP_URL)", []],
      ['sandbox', "sandbox's MCP tools (SANDBOX_MCP_URL)", []],
    ] as const
  ).map(([name, what, routes]) => ({ name, pkg: '@modelcontextprotocol/sdk', what, routes: [...routes] })),
];

/** A packaged plugin the runtime could not load: its package is not installed, or failed to load (`error`). */
export interface MissingPlugin extends PackagedPlugin {
  error?: string;
}

export interface PackagedLoad {
  plugins: AnyOraclePlugin[];
  missing: MissingPlugin[];
}

/** Whether `pkg` is installed where the runtime's own files resolve it (the lookup the import makes). */
export function packageInstalled(pkg: string): boolean {
  try {
    createRequire(import.meta.url).resolve(`${pkg}/package.json`);
    return true;
  } catch (e) {
    if (
      (e as NodeJS.ErrnoException).code === 'MODULE_NOT_FOUND' &&
      (e as Error).message.includes(`'${pkg}/package.json'`)
    )
      return false;
    return true; // present but unresolvable in another way: the import below says why
  }
}

/** Loads each packaged plugin that is installed; the others are returned as missing. */
export async function loadPackagedPlugins(list: readonly PackagedPlugin[] = PACKAGED_PLUGINS): Promise<PackagedLoad> {
  const out: PackagedLoad = { plugins: [], missing: [] };
  for (const p of list) {
    if (!packageInstalled(p.pkg)) {
      out.missing.push({ ...p });
      continue;
    }
    if (p.exportName === undefined) continue; // a bundled plugin: its module imports the package when it runs
    try {
      // by name, from this module: the package's own exports, as a project that imports it sees them
      const mod = (await import(p.pkg)) as Record<string, unknown>;
      const plugin = mod[p.exportName] as AnyOraclePlugin | undefined;
      if (!plugin || typeof plugin !== 'object' || plugin.name !== p.name)
        throw new Error(`it has no export '${p.exportName}' that is the plugin '${p.name}'`);
      out.plugins.push(plugin);
    } catch (e) {
      out.missing.push({ ...p, error: (e as Error).message.split('\n')[0] });
    }
  }
  return out;
}

/** The boot line of a packaged plugin the runtime goes without. */
export function missingLine(m: MissingPlugin): string {
  return m.error === undefined
    ? `[boot] ${m.name}: not installed; for ${m.what}, add its package: npm install ${m.pkg}`
    : `[boot] ${m.name}: ${m.pkg} is installed but did not load (${m.error}); reinstall it: npm install ${m.pkg}`;
}

/**
 * The packaged plugins an oracle goes without: the missing ones that no plugin of its list (bundled or its own)
 * replaces and its features do not turn off; of the bundled ones that need a package (`bundled`), those that would
 * run (`runs`: enabled by features and env). One forced on by features is a boot error naming the package.
 */
export function missingFor(
  missing: readonly MissingPlugin[],
  own: readonly AnyOraclePlugin[],
  features: Record<string, boolean>,
  bundled: readonly AnyOraclePlugin[] = [],
  runs: (p: AnyOraclePlugin) => boolean = () => true,
): MissingPlugin[] {
  const out = missing.filter((m) => {
    if (features[m.name] === false) return false;
    const p = own.find((q) => q.name === m.name);
    if (m.exportName !== undefined) return p === undefined;
    return p !== undefined && bundled.includes(p) && runs(p);
  });
  const forced = out.find((m) => features[m.name] === true);
  if (forced)
    throw new BootError(
      `[boot-error] Plugin '${forced.name}' is forced on by features but its package ${forced.pkg} is ` +
        `${forced.error === undefined ? 'not installed' : `not loadable (${forced.error})`}. ` +
        `Run npm install ${forced.pkg} or remove it from features`,
    );
  return out;
}
