/**
 * The package's version, read from package.json (dist/lib/version.js and src/lib/version.ts are both two levels below
 * it).
 */
import { readFileSync } from 'node:fs';

let cached: string | undefined;

export function packageVersion(): string {
  cached ??= (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string })
    .version;
  return cached;
}
