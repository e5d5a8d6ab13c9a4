/**
 * The package's version, read from package.json (dist/lib/version.js and src/lib/version.ts are both two levels below
 * it).
 */
// not an import: on the CLI's fast path (src/cli/fast-path.ts), where an ESM import of node:fs costs start-up time
const { readFileSync } = process.getBuiltinModule('node:fs');

let cached: string | undefined;

export function packageVersion(): string {
  cached ??= (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string })
    .version;
  return cached;
}
