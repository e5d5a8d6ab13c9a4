/**
 * What a web app pays for the client SDK, measured on the page docs/client.md
 * tells a reader to paste ("A chat page that works when pasted": a signer from
 * a mnemonic, useChat with a browser tool, usePayment), against a React + zod
 * page of the same app.
 *
 * - Installed: packages and megabytes `npm install` of the packed package adds
 *   to a Vite 8 React app that has react, react-dom and zod.
 * - Built: both pages with Vite and @vitejs/plugin-react, as create-vite's
 *   react-ts template lays them out; the gzip bytes (level 9) the example adds
 *   to the page's entry (the chunks its HTML loads: script and modulepreload)
 *   and in all (with the chunks it imports on demand).
 * - Sent: the built example, served from its own loopback origin, is opened
 *   in headless Chromium against the local registry (the oracle's DID
 *   registered there) and a real oracle runtime with a scripted model; a
 *   message typed into it must come back answered. A page that cannot send
 *   fails the bench (exit 1): a page that never signs weighs less.
 *
 * Targets: at most 30 kB gzip added to the entry and 45 kB in all, at most 30
 * packages besides react and zod.
 *
 * Run: node bench/client-weight.ts [package-dir]   (after npm run build)
 *   package-dir: the directory to `npm pack` (default: src/client, the client
 *   package; pass `.` to measure the whole `oraclekit` package).
 * Needs the npm registry (vite, react, zod are installed into a temp app) and
 * Chromium ($CHROMIUM, default /usr/bin/chromium). KEEP=1 keeps the app.
 */
import { execFileSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { extname, join, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';
import { chromium } from 'playwright-core';
import { runCli } from '../test/helpers/cli.ts';
import { startHarness, type Harness } from '../test/helpers/runtime-harness.ts';
import { say } from '../test/helpers/scripted-model-server.ts';

const root = join(import.meta.dirname, '..');
const pkgDir = resolve(root, process.argv[2] ?? 'src/client');
const pkg = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8')) as { name: string };
const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';
const ANSWER = 'Answered from the pasted page.';
const TARGET = { entryKB: 30, totalKB: 45, packages: 30 };

const npm = (cwd: string, args: string[]): string =>
  execFileSync('npm', [...args, '--no-audit', '--no-fund', '--loglevel=error'], { cwd, encoding: 'utf8' });

/** The example block of docs/client.md, as a reader copies it; imports renamed for the whole package. */
function exampleFromDoc(): string {
  const doc = readFileSync(join(root, 'docs/client.md'), 'utf8');
  const m = /<!-- example: react-chat-page -->\n```tsx\n([\s\S]*?)\n```/.exec(doc);
  if (!m) throw new Error('docs/client.md has no react-chat-page example');
  return pkg.name === 'oraclekit'
    ? m[1]!
        .replaceAll("'@oraclekit/client/react'", "'oraclekit/react'")
        .replaceAll("'@oraclekit/client'", "'oraclekit/client'")
    : m[1]!;
}

const home = mkdtempSync(join(tmpdir(), 'okit-weight-home-'));
const cliEnv = {
  ORACLEKIT_HOME: home,
  HOME: home,
  XDG_CONFIG_HOME: join(home, 'xdg-config'),
  XDG_STATE_HOME: join(home, 'xdg-state'),
  XDG_DATA_HOME: join(home, 'xdg-data'),
  ORACLEKIT_DAEMON_PORT: '0',
  ORACLEKIT_AUTOSTART: '',
  ORACLEKIT_API_KEY: '',
  ORACLEKIT_REGISTRY: '',
};
/** One CLI step that must succeed; its JSON output. */
async function cli(args: string[]): Promise<Record<string, unknown>> {
  const r = await runCli([...args, '--json'], { env: cliEnv, timeoutMs: 60_000 });
  if (r.code !== 0) throw new Error(`oraclekit ${args.join(' ')} failed (${r.code}): ${r.stderr}`);
  return JSON.parse(r.stdout) as Record<string, unknown>;
}

const app = mkdtempSync(join(tmpdir(), 'okit-weight-'));
const keep = process.env.KEEP === '1';
let harness: Harness | undefined;
let site: Server | undefined;
let daemonStarted = false;
try {
  if (!existsSync(CHROMIUM))
    throw new Error(`headless Chromium is needed at ${CHROMIUM} (apt-get install -y chromium)`);
  // the counterparts first: the page's .env names the registry and the oracle's DID at build time
  const registryUrl = (await cli(['daemon', 'start'])).url as string;
  daemonStarted = true;
  const key = (await cli(['daemon', 'keys', 'create', '--did', 'did:example:dev', '--role', 'representative']))
    .key as string;
  const proto = await cli(['domain', 'register', '--type', 'Protocol', '--name', 'Weight', '--api-key', key]);
  const oracleDid = (
    await cli([
      ...['domain', 'register', '--type', 'Oracle', '--class', proto.id as string, '--name', 'Weight oracle'],
      ...['--service', '#api=oracleService,http://127.0.0.1:9', '--api-key', key],
    ])
  ).id as string;
  site = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    const dist = join(app, 'dist-example');
    const file = join(dist, path === '/' ? 'index.html' : path);
    if (!file.startsWith(dist) || !existsSync(file)) return void res.writeHead(404).end();
    const type = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css' }[extname(file)];
    res.writeHead(200, { 'content-type': type ?? 'application/octet-stream' }).end(readFileSync(file));
  });
  await new Promise<void>((r) => site!.listen(0, '127.0.0.1', r));
  const addr = site.address();
  const siteUrl = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}/`;
  harness = await startHarness({
    config: { name: 'Weight oracle', model: 'scripted-model', oracleDid },
    env: { CORS_ORIGINS: new URL(siteUrl).origin },
  });
  harness.model.fallback = say(ANSWER);
  await cli([
    ...['domain', 'update', oracleDid, '--service', `#api=oracleService,${harness.url}`],
    ...['--service', `#ws=oracleService,${harness.url}`, '--api-key', key],
  ]);

  const tarball = join(app, npm(app, ['pack', pkgDir, '--pack-destination', app]).trim().split('\n').pop()!);
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'weight-app', private: true, type: 'module' }));
  npm(app, ['install', 'react@19', 'react-dom@19', 'zod@4', 'vite@8', '@vitejs/plugin-react@6']);
  const before = installed(app);
  npm(app, ['install', tarball]);
  const after = installed(app);
  const added = [...after.keys()].filter((p) => !before.has(p));
  const addedBytes = added.reduce((s, p) => s + after.get(p)!, 0);

  // React + zod alone, and the docs' example, each as create-vite's react-ts template lays a page out
  const base = `import { z } from 'zod';
const Name = z.object({ name: z.string() });
export default function App() {
  return <p>{Name.parse({ name: 'x' }).name}</p>;
}
`;
  const env = `VITE_ORACLE_DID=${oracleDid}\nVITE_REGISTRY_URL=${registryUrl}\n`;
  const baseGzip = build(app, 'base', base, env);
  const docGzip = build(app, 'example', exampleFromDoc(), env);

  // the example must send: typed into the page in Chromium, the oracle's answer comes back
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox'] });
  try {
    const page = await browser.newPage();
    const problems: string[] = [];
    page.on('pageerror', (e) => problems.push(e.message));
    await page.goto(siteUrl);
    await page.getByLabel('Message').fill('Are you there?');
    await page.getByRole('button', { name: 'Send' }).click();
    try {
      await page.locator('main > ol > li', { hasText: ANSWER }).waitFor({ timeout: 30_000 });
    } catch {
      const shown = await page.locator('body').innerText();
      throw new Error(
        `the docs' example could not send a message: it shows ${JSON.stringify(shown)}; ${problems.join('; ')}`,
      );
    }
  } finally {
    await browser.close();
  }

  const kB = (n: number) => Number((n / 1000).toFixed(1));
  const figures = {
    package: pkg.name,
    packagesAdded: added.length,
    installedMB: Number((addedBytes / 1e6).toFixed(1)),
    gzipBaseKB: kB(baseGzip.entry + baseGzip.lazy),
    // what the page loads before it shows anything
    gzipDeltaEntryKB: kB(docGzip.entry - baseGzip.entry),
    // with the chunks it loads on demand (signing, the socket)
    gzipDeltaTotalKB: kB(docGzip.entry + docGzip.lazy - baseGzip.entry - baseGzip.lazy),
    lazyChunksKB: docGzip.chunks.filter((c) => !c.entry).map((c) => `${c.file} ${kB(c.gzip)}`),
    sent: true,
  };
  console.log(JSON.stringify(figures, null, 2));
  if (process.env.VERBOSE === '1') console.log(added.join('\n'));
  const over = [
    figures.gzipDeltaEntryKB > TARGET.entryKB && `entry +${figures.gzipDeltaEntryKB} kB > ${TARGET.entryKB} kB`,
    figures.gzipDeltaTotalKB > TARGET.totalKB && `total +${figures.gzipDeltaTotalKB} kB > ${TARGET.totalKB} kB`,
    figures.packagesAdded > TARGET.packages && `${figures.packagesAdded} packages > ${TARGET.packages}`,
  ].filter(Boolean);
  if (over.length) {
    console.error(`over target: ${over.join('; ')}`);
    process.exitCode = 1;
  }
} catch (e) {
  console.error(e instanceof Error ? e.message : e);
  process.exitCode = 1;
} finally {
  await harness?.close();
  await new Promise((r) => (site ? site.close(r) : r(undefined)));
  if (daemonStarted) await runCli(['daemon', 'stop', '--grace', '1'], { env: cliEnv });
  rmSync(home, { recursive: true, force: true });
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
    out.set(key, du(join(dir, key)));
  }
  return out;
}

/** Bytes under a directory, not counting nested node_modules (counted as their own packages). */
function du(path: string): number {
  let s: ReturnType<typeof statSync>;
  try {
    s = statSync(path);
  } catch {
    return 0;
  }
  if (!s.isDirectory()) return s.size;
  let total = 0;
  for (const name of readdirSync(path)) if (name !== 'node_modules') total += du(join(path, name));
  return total;
}

/**
 * Builds one page (index.html, src/main.tsx and src/App.tsx as create-vite's react-ts template has them) with Vite
 * and the React plugin; the gzip size of each chunk, entry when the page's HTML loads it.
 */
function build(
  dir: string,
  name: string,
  appSource: string,
  env: string,
): { entry: number; lazy: number; chunks: { file: string; gzip: number; entry: boolean }[] } {
  const src = join(dir, name);
  mkdirSync(join(src, 'src'), { recursive: true });
  writeFileSync(join(src, 'src/App.tsx'), appSource);
  writeFileSync(
    join(src, 'src/main.tsx'),
    "import { StrictMode } from 'react';\nimport { createRoot } from 'react-dom/client';\nimport App from './App.tsx';\n\n" +
      "createRoot(document.getElementById('root')!).render(\n  <StrictMode>\n    <App />\n  </StrictMode>,\n);\n",
  );
  writeFileSync(
    join(src, 'index.html'),
    '<!doctype html>\n<html lang="en"><head><meta charset="UTF-8" /><title>Weight</title></head>\n' +
      '<body><div id="root"></div><script type="module" src="/src/main.tsx"></script></body></html>\n',
  );
  writeFileSync(
    join(src, 'vite.config.js'),
    "import react from '@vitejs/plugin-react';\nexport default { plugins: [react()] };\n",
  );
  writeFileSync(join(src, '.env'), env);
  const out = join(dir, `dist-${name}`);
  execFileSync(join(dir, 'node_modules/.bin/vite'), ['build', '--logLevel', 'error', '--outDir', out], {
    cwd: src,
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const html = readFileSync(join(out, 'index.html'), 'utf8');
  const chunks = readdirSync(join(out, 'assets'))
    .filter((f) => f.endsWith('.js'))
    .map((f) => ({
      file: f,
      gzip: gzipSync(readFileSync(join(out, 'assets', f)), { level: 9 }).length,
      entry: html.includes(`assets/${f}`),
    }));
  const sum = (entry: boolean) => chunks.filter((c) => c.entry === entry).reduce((s, c) => s + c.gzip, 0);
  return { entry: sum(true), lazy: sum(false), chunks };
}
