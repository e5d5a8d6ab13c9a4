/**
 * The React SDK in a real browser, as a web developer uses it: the chat page
 * of docs/client.md ("A chat page that works when pasted"), copied from the
 * doc by this test, built by Vite with @vitejs/plugin-react against the built
 * @oraclekit/client package, served from its own origin and driven in
 * headless Chromium (Debian's /usr/bin/chromium, or $CHROMIUM, through
 * playwright-core). Its counterparts are real: the local registry daemon
 * (started through the CLI, the oracle's domain registered there) and an
 * oracle runtime over HTTP + socket.io with a scripted model.
 *
 * The page resolves the DID through the registry's public read (cross-origin,
 * no key), makes a session with its first message, streams a turn with
 * reasoning and a browser tool, shows a model error as a visible row, and
 * its history after a refetch (and after a reload) is the stream's view,
 * byte for byte. The last screenshot is kept in test-artifacts/.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync, existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { extname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser, type Page, type Route } from 'playwright-core';
import { build } from 'vite';
import react from '@vitejs/plugin-react';
import { runCli } from '../helpers/cli.ts';
import { createKey, pointOracleAt, registerInProtocol } from '../helpers/domains.ts';
import { startHarness, type Harness } from '../helpers/runtime-harness.ts';
import { callTool, say } from '../helpers/scripted-model-server.ts';
import { tempHome } from '../unit/daemon/harness.ts';

const ROOT = join(import.meta.dirname, '../..');
const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';
const ARTIFACTS = join(ROOT, 'test-artifacts');
const t = tempHome();
const json = (s: string) => JSON.parse(s) as Record<string, unknown>;
const cli = (args: string[]) => runCli(args, { env: t.env });

/** The example block of docs/client.md, as a reader copies it. */
function exampleFromDoc(): string {
  const doc = readFileSync(join(ROOT, 'docs/client.md'), 'utf8');
  const m = /<!-- example: react-chat-page -->\n```tsx\n([\s\S]*?)\n```/.exec(doc);
  if (!m) throw new Error('docs/client.md has no react-chat-page example');
  return m[1]!;
}

let h: Harness;
let oracleDid: string;
let registryUrl: string;
let app: string;
let site: Server;
let siteUrl: string;
let browser: Browser;

beforeAll(async () => {
  expect(existsSync(CHROMIUM), `headless Chromium is needed at ${CHROMIUM} (apt-get install -y chromium)`).toBe(true);
  const start = await cli(['daemon', 'start', '--json']);
  expect(start.code, start.stderr).toBe(0);
  registryUrl = json(start.stdout).url as string;
  const key = await createKey(cli, 'did:example:dev', ['representative']);
  oracleDid = await registerInProtocol(cli, key, {
    protocol: 'Oracles',
    type: 'Oracle',
    name: 'Browser test oracle',
    extra: ['--service', '#api=oracleService,http://127.0.0.1:9'],
  });
  // the page's own origin (another port than the registry and the oracle: every call is cross-origin)
  site = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    const file = join(app, 'dist', path === '/' ? 'index.html' : path);
    if (!file.startsWith(join(app, 'dist')) || !existsSync(file)) return void res.writeHead(404).end();
    const type = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css' }[extname(file)];
    res.writeHead(200, { 'content-type': type ?? 'application/octet-stream' }).end(readFileSync(file));
  });
  await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
  const addr = site.address();
  siteUrl = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}/`;
  // a loopback oracle serves pages of other origins only when CORS_ORIGINS names them (docs/runtime.md)
  h = await startHarness({
    config: { name: 'Browser test oracle', model: 'scripted-model', oracleDid },
    env: { CORS_ORIGINS: new URL(siteUrl).origin },
  });
  await pointOracleAt(cli, key, oracleDid, h.url);

  // the app: index.html and main.tsx as create-vite's react-ts template has them, App.tsx from the doc
  app = mkdtempSync(join(tmpdir(), 'okit-browser-app-'));
  mkdirSync(join(app, 'src'));
  symlinkSync(join(ROOT, 'node_modules'), join(app, 'node_modules'), 'dir');
  writeFileSync(
    join(app, 'index.html'),
    '<!doctype html>\n<html lang="en"><head><meta charset="UTF-8" /><title>Browser test page</title></head>\n' +
      '<body><div id="root"></div><script type="module" src="/src/main.tsx"></script></body></html>\n',
  );
  writeFileSync(
    join(app, 'src/main.tsx'),
    "import { StrictMode } from 'react';\nimport { createRoot } from 'react-dom/client';\nimport App from './App.tsx';\n\n" +
      "createRoot(document.getElementById('root')!).render(\n  <StrictMode>\n    <App />\n  </StrictMode>,\n);\n",
  );
  writeFileSync(join(app, 'src/App.tsx'), exampleFromDoc());
  writeFileSync(join(app, '.env'), `VITE_ORACLE_DID=${oracleDid}\nVITE_REGISTRY_URL=${registryUrl}\n`);
  await build({ root: app, plugins: [react()], logLevel: 'warn', build: { outDir: join(app, 'dist') } });

  browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox'] });
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await new Promise((r) => site?.close(r));
  await h?.close();
  await cli(['daemon', 'stop', '--grace', '1']);
  if (app) rmSync(app, { recursive: true, force: true });
  t.cleanup();
});

/** The conversation as the page shows it. */
const list = (page: Page) => page.locator('main > ol').innerHTML();

async function send(page: Page, text: string): Promise<void> {
  await page.getByLabel('Message').fill(text);
  await page.getByRole('button', { name: 'Send' }).click();
}

describe('the chat page of docs/client.md in headless Chromium', () => {
  it('resolves the DID, makes a session, streams reasoning, a browser tool and the answer; history renders as the stream did; a model error is a visible row', async () => {
    const page = await browser.newPage();
    const problems: string[] = [];
    page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
    // hold the history reads, so that the streamed view can be seen before the refetch replaces it
    let holding = true;
    const held: Route[] = [];
    await page.route(/\/messages\/[^/?]+$/, (route) => {
      if (route.request().method() === 'GET' && holding) held.push(route);
      else void route.continue();
    });

    // the portal capability (browser tools) is loaded first, then the page's tool is called
    h.model.enqueue(
      {
        steps: [
          { type: 'reasoning', text: 'The user asks about the page.' },
          { type: 'tool_call', name: 'load_capability', args: { names: ['portal'] }, id: 'call_load' },
        ],
      },
      callTool('get_page_title', {}, 'call_title'),
      say('The page is called Browser test page.'),
    );
    await page.goto(siteUrl);
    await send(page, 'What page am I on?');
    const answer = page.locator('main > ol > li', { hasText: 'The page is called Browser test page.' });
    await answer.waitFor({ timeout: 15_000 });
    // the turn ended and the page asked for its history: the view now is the stream's
    await expect.poll(() => held.length, { timeout: 10_000 }).toBeGreaterThan(0);
    const streamed = await list(page);
    expect(await page.locator('li.reasoning').innerText()).toBe('The user asks about the page.');
    const tools = page.locator('[data-oraclekit="tool-call"]');
    expect(await tools.allInnerTexts()).toEqual(['load_capability: done', 'get_page_title: done']);
    // the browser tool ran in the page: its result reached the model
    expect(JSON.stringify(h.model.requests.at(-1)?.body)).toContain('Browser test page');
    holding = false;
    for (const r of held.splice(0)) await r.continue();
    await page.waitForLoadState('networkidle');
    await expect.poll(() => page.locator('main > ol > li').count()).toBe(5);
    expect(await list(page)).toBe(streamed);

    // a new page load: the same session (the most recent), rendered from the history
    await page.reload();
    await answer.waitFor({ timeout: 15_000 });
    await page.waitForLoadState('networkidle');
    expect(await list(page)).toBe(streamed);

    // a model error: a visible error row, also after the refetch
    h.model.enqueue({ steps: [{ type: 'stream_error', message: 'the upstream model failed' }] });
    await send(page, 'And now?');
    const error = page.locator('[data-oraclekit="error"]');
    await error.waitFor({ timeout: 15_000 });
    expect(await error.isVisible()).toBe(true);
    expect(await error.innerText()).toContain('the upstream model failed');
    await page.waitForLoadState('networkidle');
    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: join(ARTIFACTS, 'client-browser.png'), fullPage: true });
    expect(problems).toEqual([]);
    await page.close();
  }, 90_000);
});
