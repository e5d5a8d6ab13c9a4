import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../helpers/runtime-harness.ts';
import { callTool, lastToolResult, say } from '../helpers/scripted-model-server.ts';
import { startComposioServer, type ComposioServer } from '../helpers/composio-server.ts';
import type { AnyEvent } from '../../src/lib/protocol/index.ts';
import { composioPlugin } from '../../src/runtime/plugins/index.ts';
import { bootWith } from '../unit/runtime/plugins/_helpers/boot.ts';

let h: Harness;
let cs: ComposioServer;
const toolEvents = (events: AnyEvent[]) =>
  events.filter((e) => e.event === 'tool_call').map((e) => (e.event === 'tool_call' ? e.data : undefined)!);

beforeAll(async () => {
  cs = await startComposioServer();
  h = await startHarness({
    env: { COMPOSIO_API_KEY: cs.apiKey, COMPOSIO_BASE_URL: cs.url, COMPOSIO_TIMEOUT_MS: '800' },
  });
});
afterAll(async () => {
  await h.close();
  await cs.close();
});

describe('composio plugin against a loopback Composio API', () => {
  it('is loaded by COMPOSIO_API_KEY; the key is never logged', async () => {
    expect(h.lines).toContain('[boot] loaded: composio');
    expect(h.app.plugins.status().loaded).toContain('composio');
    expect((await (await fetch(`${h.url}/ready`)).json()).plugins.loaded).toContain('composio');
    expect(h.lines.join('\n')).not.toContain(cs.apiKey);
  });

  it('load_capability → search → execute as the user (their connected account); results reach the model', async () => {
    const u = await h.user();
    cs.connect(u.did, 'github');
    const s = await u.newSession();
    h.model.enqueue(
      callTool('load_capability', { names: ['composio'] }, 'c_load'),
      callTool('composio_search_tools', { query: 'create issue', toolkit: 'GitHub' }, 'c_search'),
      callTool(
        'composio_execute_tool',
        { tool_slug: 'GITHUB_CREATE_AN_ISSUE', arguments: { owner: 'ixo', repo: 'stoves', title: 'Sensor 7 offline' } },
        'c_exec',
      ),
      (body) => say(`Created ${(lastToolResult(body) as { data: { html_url: string } }).data.html_url}`),
    );
    const before = h.model.requests.length;
    const { events } = await u.stream(s, 'Open an issue in ixo/stoves: Sensor 7 offline');
    expect(events.at(-1)).toMatchObject({ event: 'done', data: { status: 'finished' } });
    expect(
      toolEvents(events)
        .filter((c) => c.status !== 'isRunning')
        .map((c) => [c.eventId, c.status]),
    ).toEqual([
      ['c_load', 'done'],
      ['c_search', 'done'],
      ['c_exec', 'done'],
    ]);
    const search = lastToolResult(h.model.requests[before + 2]!.body) as {
      tools: { slug: string; toolkit: string; input_parameters: { required: string[] } }[];
    };
    expect(search.tools.map((t) => t.slug)).toEqual(['GITHUB_CREATE_AN_ISSUE']);
    expect(search.tools[0]!.toolkit).toBe('github');
    expect(search.tools[0]!.input_parameters.required).toEqual(['owner', 'repo', 'title']);
    expect(lastToolResult(h.model.requests[before + 3]!.body)).toEqual({
      ok: true,
      tool: 'GITHUB_CREATE_AN_ISSUE',
      data: {
        number: 42,
        html_url: 'https://github.com/ixo/stoves/issues/42',
        title: 'Sensor 7 offline',
        state: 'open',
      },
      logId: expect.stringMatching(/^log_\d+$/),
    });
    const text = events.map((e) => (e.event === 'message' ? e.data.content : '')).join('');
    expect(text).toBe('Created https://github.com/ixo/stoves/issues/42');
    // the real request shapes
    const listReq = cs.requests.find((r) => r.path === '/api/v3/tools')!;
    expect(listReq.query).toEqual({ search: 'create issue', toolkit_slug: 'github', limit: '8' });
    expect(listReq.headers['x-api-key']).toBe(cs.apiKey);
    const execReq = cs.requests.find((r) => r.path === '/api/v3/tools/execute/GITHUB_CREATE_AN_ISSUE')!;
    expect(execReq.method).toBe('POST');
    expect(execReq.body).toEqual({
      user_id: u.did,
      arguments: { owner: 'ixo', repo: 'stoves', title: 'Sensor 7 offline' },
    });
  });

  it('failures are clear tool errors: unknown slug, no connected account, unsuccessful execution, time-out', async () => {
    const u = await h.user(); // no connected accounts
    const s = await u.newSession();
    h.model.enqueue(
      callTool('load_capability', { names: ['composio'] }),
      callTool('composio_execute_tool', { tool_slug: 'GITHUB_MAKE_COFFEE', arguments: {} }, 'c_unknown'),
      callTool(
        'composio_execute_tool',
        { tool_slug: 'GMAIL_SEND_EMAIL', arguments: { recipient_email: 'a@b.c', body: 'hi' } },
        'c_noacct',
      ),
      callTool('composio_execute_tool', { tool_slug: 'HACKERNEWS_GET_TOP_STORIES', arguments: { limit: 1 } }, 'c_ok'),
      callTool('composio_search_tools', { query: 'nothing like this' }, 'c_none'),
      say('Done.'),
    );
    const { events } = await u.stream(s, 'try things');
    expect(events.at(-1)).toMatchObject({ event: 'done', data: { status: 'finished' } });
    const byId = new Map(
      toolEvents(events)
        .filter((c) => c.status !== 'isRunning')
        .map((c) => [c.eventId, c]),
    );
    expect(byId.get('c_unknown')).toMatchObject({
      status: 'error',
      error:
        "Composio has no tool 'GITHUB_MAKE_COFFEE'. Call composio_search_tools to find the right slug. Tool GITHUB_MAKE_COFFEE not found",
    });
    expect(byId.get('c_noacct')).toMatchObject({
      status: 'error',
      error: `the Composio API answered HTTP 400: No connected account found for user ${u.did} for toolkit gmail (Connect a gmail account for this user first)`,
    });
    expect(byId.get('c_ok')).toMatchObject({
      status: 'done',
      output: { ok: true, data: { stories: [{ id: 1, title: 'Show HN: cookstove telemetry' }] } },
    });
    expect(byId.get('c_none')).toMatchObject({ status: 'done', output: { tools: [], hint: expect.any(String) } });

    cs.connect(u.did, 'github');
    cs.delayMs = 0;
    h.model.enqueue(
      callTool(
        'composio_execute_tool',
        { tool_slug: 'GITHUB_CREATE_AN_ISSUE', arguments: { owner: 'ixo' } },
        'c_missing',
      ),
      say('Need a title.'),
    );
    const r2 = await u.stream(s, 'make an issue');
    expect(toolEvents(r2.events).find((c) => c.eventId === 'c_missing' && c.status === 'error')?.error).toBe(
      'GITHUB_CREATE_AN_ISSUE did not succeed: Missing required parameter(s): repo, title',
    );

    cs.delayMs = 5000;
    try {
      h.model.enqueue(callTool('composio_search_tools', { query: 'issue' }, 'c_slow'), say('Composio is slow.'));
      const r3 = await u.stream(s, 'slow');
      expect(toolEvents(r3.events).find((c) => c.eventId === 'c_slow' && c.status === 'error')?.error).toBe(
        'the Composio API did not answer within 800 ms',
      );
      expect(r3.events.at(-1)).toMatchObject({ event: 'done', data: { status: 'finished' } });
    } finally {
      cs.delayMs = 0;
    }
  });

  it('a wrong key: a clear 401 tool error that does not contain the key', async () => {
    const h2 = await startHarness({ env: { COMPOSIO_API_KEY: 'ak_wrong_key_999', COMPOSIO_BASE_URL: cs.url } });
    try {
      const u = await h2.user();
      const s = await u.newSession();
      h2.model.enqueue(
        callTool('load_capability', { names: ['composio'] }),
        callTool('composio_search_tools', { query: 'issue' }, 'c_401'),
        say('Key problem.'),
      );
      const { events } = await u.stream(s, 'search');
      const err = toolEvents(events).find((c) => c.eventId === 'c_401' && c.status === 'error')!.error!;
      expect(err).toBe(
        'the Composio API answered HTTP 401 (the credentials are missing, invalid or lack access): API key is invalid or missing (Pass a valid API key in the x-api-key header)',
      );
      expect(err).not.toContain('ak_wrong_key_999');
    } finally {
      await h2.close();
    }
  });
});

describe('composio boot', () => {
  it('blank key → excluded; bad base URL or a forced plugin without a key → boot error', async () => {
    const blank = await bootWith([composioPlugin], { COMPOSIO_API_KEY: '' });
    expect(blank.lines).toContain('[boot] excluded: composio (COMPOSIO_API_KEY)');
    const bad = await bootWith([composioPlugin], {
      COMPOSIO_API_KEY: 'ak_1234567890',
      COMPOSIO_BASE_URL: 'backend.composio.dev',
    });
    expect(bad.error).toBe(
      `[boot-error] Plugin 'composio' env validation failed for 'COMPOSIO_BASE_URL' = "backend.composio.dev": must be an http(s) URL, e.g. https://backend.composio.dev. Set 'COMPOSIO_BASE_URL' or disable it: features: { composio: false }`,
    );
    const forced = await bootWith([composioPlugin], {}, { composio: true });
    expect(forced.error).toBe(
      "[boot-error] Plugin 'composio' env validation failed for 'COMPOSIO_API_KEY': required but blank. Set 'COMPOSIO_API_KEY' or disable it: features: { composio: false }",
    );
    const ok = await bootWith([composioPlugin], { COMPOSIO_API_KEY: 'ak_1234567890' });
    expect(ok.status!.loaded).toEqual(['composio']);
  });
});
