/**
 * `oraclekit/client` and `oraclekit/react` bundle for browsers: vite builds
 * each entry for the browser and nothing Node-only is needed. What only some
 * pages use (the key code and its word list, the token writer, the socket) is
 * in chunks loaded on demand, and no UCAN library is bundled at all.
 */
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { builtinModules } from 'node:module';
import { build, type Plugin } from 'vite';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '../../..');

const BUILTINS = new Set(builtinModules.flatMap((m) => [m, `node:${m}`]));

async function bundle(entry: string): Promise<{ code: string; lazy: string[]; externalized: string[] }> {
  const out = mkdtempSync(join(tmpdir(), 'oraclekit-bundle-'));
  const externalized: string[] = [];
  // records every Node built-in the bundle reaches for, and from where
  const spy: Plugin = {
    name: 'builtin-spy',
    enforce: 'pre',
    resolveId(source, importer) {
      if (BUILTINS.has(source)) externalized.push(`${source} <- ${(importer ?? '').replace(/.*node_modules\//, '')}`);
      return null;
    },
  };
  try {
    await build({
      configFile: false,
      logLevel: 'silent',
      root,
      plugins: [spy],
      build: {
        lib: { entry: join(root, entry), formats: ['es'], fileName: 'out' },
        outDir: out,
        emptyOutDir: true,
        minify: false,
        write: true,
        rollupOptions: { external: ['react', 'react/jsx-runtime'] },
      },
    });
    const lazy = readdirSync(out)
      .filter((f) => f.endsWith('.js') && f !== 'out.js')
      .map((f) => readFileSync(join(out, f), 'utf8'));
    return { code: readFileSync(join(out, 'out.js'), 'utf8'), lazy, externalized: [...new Set(externalized)] };
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

describe('browser bundles', () => {
  it.each(['src/client/index.ts', 'src/client/react/index.ts'])(
    '%s builds for the browser without Node built-ins',
    async (entry) => {
      const { code, externalized } = await bundle(entry);
      expect(code).toContain('OracleEventParser');
      expect(externalized).toEqual([]);
      expect(code).not.toMatch(/from ["']node:/);
    },
    60_000,
  );

  it('the key code, its word list, the token writer and the socket load on demand; no UCAN library is bundled', async () => {
    const { code, lazy } = await bundle('src/client/index.ts');
    const all = [code, ...lazy].join('\n');
    // the word list's first and last words, the socket client, the token's archive variant, the PBKDF2 derivation
    for (const lazyOnly of ['abandon', 'zebra', 'xhr poll error', 'ucan@', 'PBKDF2']) {
      expect(code, lazyOnly).not.toContain(lazyOnly);
      expect(all, lazyOnly).toContain(lazyOnly);
    }
    // cborg, @ipld/car, dag-ucan, a JavaScript hash or curve: none at all (their own messages)
    for (const absent of [
      'CBOR decode error',
      'Header size was overestimated',
      "must start with 'did:'",
      'createHasher',
      'ExtendedPoint',
    ]) {
      expect(all, absent).not.toContain(absent);
    }
  }, 60_000);

  it('livekit-client is in oraclekit/react/live-agent only', async () => {
    const live = await bundle('src/client/react/live-agent.ts');
    expect(live.code).toContain('useLiveAgent');
    expect(live.code).toContain('ExternalE2EEKeyProvider');
    expect(live.code).not.toMatch(/from ["']node:/);
    const react = await bundle('src/client/react/index.ts');
    expect(react.code).not.toContain('ExternalE2EEKeyProvider');
    expect(react.code).not.toContain('livekit');
  }, 60_000);
});
