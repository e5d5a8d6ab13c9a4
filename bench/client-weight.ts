/**
 * What a web app pays for the client SDK: packages and megabytes installed,
 * and gzip bytes added to a Vite bundle of a `useChat` page, over a React +
 * zod app. Target: at most 30 packages besides react and zod, at most 30 kB
 * gzip.
 *
 * Run: node bench/client-weight.ts [package-dir]   (after npm run build)
 *   package-dir: the directory to `npm pack` (default: src/client, the
 *   client package; pass `.` to measure the whole `oraclekit` package).
 * Needs the npm registry (vite, react, zod are installed into a temp app).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';

const root = join(import.meta.dirname, '..');
const pkgDir = resolve(root, process.argv[2] ?? 'src/client');
const pkg = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8')) as { name: string };
const npm = (cwd: string, args: string[]): string =>
  execFileSync('npm', [...args, '--no-audit', '--no-fund', '--loglevel=error'], { cwd, encoding: 'utf8' });

const app = mkdtempSync(join(tmpdir(), 'okit-weight-'));
const keep = process.env.KEEP === '1';
try {
  const tarball = join(app, npm(app, ['pack', pkgDir, '--pack-destination', app]).trim().split('\n').pop()!);
  writeFileSync(
    join(app, 'package.json'),
    JSON.stringify({ name: 'weight-app', private: true, type: 'module' }, null, 2),
  );
  npm(app, ['install', 'react@19', 'react-dom@19', 'zod@4', 'vite@8']);
  const before = installed(app);
  npm(app, ['install', tarball]);
  const after = installed(app);
  const added = [...after.keys()].filter((p) => !before.has(p));
  const addedBytes = added.reduce((s, p) => s + after.get(p)!, 0);

  // Two pages built by Vite: React + zod alone, and the same with useChat.
  const base = `import { createRoot } from 'react-dom/client';
import { createElement } from 'react';
import { z } from 'zod';
const Name = z.object({ name: z.string() });
createRoot(document.getElementById('root')!).render(createElement('p', null, Name.parse({ name: 'x' }).name));
`;
  const reactEntry = pkg.name === 'oraclekit' ? 'oraclekit/react' : `${pkg.name}/react`;
  const chat = `import { createRoot } from 'react-dom/client';
import { createElement } from 'react';
import { z } from 'zod';
import { OraclesProvider, useChat } from '${reactEntry}';
const Name = z.object({ name: z.string() });
function Chat() {
  const { messages, sendMessage } = useChat({ oracleDid: 'did:ixo:entity:x' });
  return createElement('button', { onClick: () => sendMessage('hi') }, Name.parse({ name: String(messages.length) }).name);
}
createRoot(document.getElementById('root')!).render(
  createElement(OraclesProvider, { apiUrl: 'http://127.0.0.1:1', walletAddress: 'x', registryUrl: 'http://127.0.0.1:2' }, createElement(Chat)),
);
`;
  const baseGzip = build(app, 'base', base);
  const chatGzip = build(app, 'chat', chat);
  const kB = (n: number) => Number((n / 1000).toFixed(1));
  const figures = {
    package: pkg.name,
    packagesAdded: added.length,
    installedMB: Number((addedBytes / 1e6).toFixed(1)),
    gzipBaseKB: kB(baseGzip.entry + baseGzip.lazy),
    // what the page loads before its first message
    gzipDeltaPageKB: kB(chatGzip.entry - baseGzip.entry),
    // chunks loaded on demand (the UCAN encoder on the first signed request, the socket client on connect)
    gzipLazyKB: kB(chatGzip.lazy),
    gzipDeltaTotalKB: kB(chatGzip.entry + chatGzip.lazy - baseGzip.entry - baseGzip.lazy),
  };
  console.log(JSON.stringify(figures, null, 2));
  if (process.env.VERBOSE === '1') console.log(added.join('\n'));
} finally {
  if (keep) console.error(`kept ${app}`);
  else rmSync(app, { recursive: true, force: true });
}

/** Every installed package directory (node_modules/…, nested too) and its size in bytes. */
function installed(dir: string): Map<string, number> {
  const lock = JSON.parse(readFileSync(join(dir, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, unknown>;
  };
  const out = new Map<string, number>();
  for (const key of Object.keys(lock.packages)) {
    if (!key.startsWith('node_modules/')) continue;
    out.set(key, du(join(dir, key), true));
  }
  return out;
}

/** Bytes under a directory, not counting nested node_modules (counted as their own packages). */
function du(path: string, top = false): number {
  let s: ReturnType<typeof statSync>;
  try {
    s = statSync(path);
  } catch {
    return 0;
  }
  if (!s.isDirectory()) return s.size;
  let total = 0;
  for (const name of readdirSync(path)) {
    if (name === 'node_modules' && !top) continue;
    if (name === 'node_modules') continue;
    total += du(join(path, name));
  }
  return total;
}

/** Builds one page with Vite; the gzip size of its entry chunk and of the chunks it loads on demand. */
function build(dir: string, name: string, source: string): { entry: number; lazy: number } {
  const src = join(dir, name);
  mkdirSync(src, { recursive: true });
  writeFileSync(join(src, 'main.tsx'), source);
  writeFileSync(
    join(src, 'index.html'),
    '<!doctype html><div id="root"></div><script type="module" src="./main.tsx"></script>',
  );
  execFileSync(
    join(dir, 'node_modules/.bin/vite'),
    ['build', '--logLevel', 'error', '--outDir', join(dir, `dist-${name}`)],
    {
      cwd: src,
      stdio: ['ignore', 'inherit', 'inherit'],
    },
  );
  const out = join(dir, `dist-${name}`);
  const html = readFileSync(join(out, 'index.html'), 'utf8');
  const sizes = { entry: 0, lazy: 0 };
  for (const f of readdirSync(join(out, 'assets')).filter((f) => f.endsWith('.js'))) {
    const gz = gzipSync(readFileSync(join(out, 'assets', f)), { level: 9 }).length;
    if (html.includes(`assets/${f}`)) sizes.entry += gz;
    else sizes.lazy += gz;
  }
  return sizes;
}
