/**
 * `oraclekit/client` and `oraclekit/react` bundle for browsers: vite builds
 * each entry for the browser and nothing Node-only is needed (the only module
 * vite stubs is `crypto`, which @noble/ed25519 reaches for behind a check and
 * replaces with WebCrypto in browsers).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { builtinModules } from 'node:module';
import { build, type Plugin } from 'vite';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '../../..');

const BUILTINS = new Set(builtinModules.flatMap((m) => [m, `node:${m}`]));

async function bundle(entry: string): Promise<{ code: string; externalized: string[] }> {
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
    return { code: readFileSync(join(out, 'out.js'), 'utf8'), externalized: [...new Set(externalized)] };
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
      // nothing but @noble/ed25519's guarded crypto import (it uses WebCrypto in browsers), where signing is bundled
      expect(externalized.filter((e) => e !== 'crypto <- @noble/ed25519/lib/esm/index.js')).toEqual([]);
      expect(code).not.toMatch(/from ["']node:/);
    },
    60_000,
  );

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
