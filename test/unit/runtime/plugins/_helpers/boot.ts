/**
 * Boots a runtime (no listening) with given bundled plugins and env; collects the boot lines or the boot error line.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createOracleApp } from '../../../../../src/runtime/app.ts';
import { BootError } from '../../../../../src/runtime/boot.ts';
import type { AnyOraclePlugin } from '../../../../../src/runtime/plugin.ts';
import type { PluginsStatus } from '../../../../../src/lib/protocol/index.ts';

export async function bootWith(
  plugins: AnyOraclePlugin[],
  env: Record<string, string | undefined>,
  features?: Record<string, boolean>,
): Promise<{ lines: string[]; status?: PluginsStatus; error?: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'oraclekit-pboot-'));
  const lines: string[] = [];
  try {
    const app = createOracleApp({
      config: { name: 'Boot', oracleDid: 'did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK' },
      dbPath: join(dir, 'o.db'),
      logger: { info: (l) => lines.push(l), error: (l) => lines.push(l) },
      bundledPlugins: plugins,
      features,
      env,
      signingMnemonic: '',
    });
    const status = app.plugins.status();
    await app.close();
    return { lines, status };
  } catch (e) {
    if (e instanceof BootError) return { lines, error: e.line };
    throw e;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
