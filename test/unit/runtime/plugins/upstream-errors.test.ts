/**
 * Slack, Composio and Matrix answer a non-2xx upstream reply with the outbound helper's one upstream-error shape:
 * 502 upstream_error, "<who> answered HTTP <status>: <its message>", the upstream status, the upstream's own code
 * (Slack's and Composio's error codes, Matrix's errcode), the URL without its query and a 429's Retry-After.
 * The upstreams are loopback servers answering 429 and 500.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { OracleKitError } from '../../../../src/lib/errors.ts';
import { composioPlugin } from '../../../../src/runtime/plugins/composio/index.ts';
import { slackPlugin } from '../../../../src/runtime/plugins/slack/index.ts';
import { MatrixClient } from '../../../../src/runtime/plugins/matrix/client.ts';

/** What the upstream answers next: a status, a JSON body (or text) and headers. */
let reply: { status: number; body: unknown; headers?: Record<string, string> };
let server: Server;
let base: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const text = typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body);
      res.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers }).end(text);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

async function caught(p: Promise<unknown>): Promise<OracleKitError> {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(OracleKitError);
  return e as OracleKitError;
}

describe('the one upstream-error shape of the messaging and tool plugins', () => {
  it('slack: a 429 carries the status, its Retry-After and the URL; a 500 with text carries the text', async () => {
    const ctx = {
      env: {
        SLACK_BOT_TOKEN: 'xoxb-1-test',
        SLACK_APP_TOKEN: 'xapp-1-test',
        SLACK_API_URL: `${base}/api`,
        SLACK_TIMEOUT_MS: 2000,
      },
    };
    reply = { status: 429, body: { ok: false, error: 'ratelimited' }, headers: { 'retry-after': '30' } };
    const e = await caught(slackPlugin.start!(ctx as never));
    expect(e).toMatchObject({
      status: 502,
      code: 'upstream_error',
      message: 'Slack (auth.test) answered HTTP 429: ratelimited',
      details: { upstreamStatus: 429, url: `${base}/api/auth.test`, retryAfter: '30' },
    });
    reply = { status: 500, body: 'internal trouble' };
    expect(await caught(slackPlugin.start!(ctx as never))).toMatchObject({
      code: 'upstream_error',
      message: 'Slack (auth.test) answered HTTP 500: internal trouble',
      details: { upstreamStatus: 500 },
    });
  });

  it("composio: Composio's message, suggested fix and numeric code; the API key never in the message", async () => {
    const key = 'ck_test_key_12345';
    const tools = composioPlugin.tools!({
      env: { COMPOSIO_API_KEY: key, COMPOSIO_BASE_URL: base, COMPOSIO_TIMEOUT_MS: 2000 },
    } as never) as unknown as Record<string, { execute: (input: unknown, turn: unknown) => Promise<unknown> }>;
    const turn = { abortSignal: new AbortController().signal, userDid: 'did:key:z6Mkuser' };
    reply = {
      status: 429,
      body: { error: { message: `rate limit for ${key}`, code: 1429, suggested_fix: 'Retry later' } },
      headers: { 'retry-after': '12' },
    };
    const e = await caught(tools.composio_search_tools!.execute({ query: 'send email' }, turn));
    expect(e).toMatchObject({
      status: 502,
      code: 'upstream_error',
      message: 'the Composio API answered HTTP 429: rate limit for *** (Retry later)',
      details: { upstreamStatus: 429, upstreamCode: 1429, url: `${base}/api/v3/tools`, retryAfter: '12' },
    });
    reply = { status: 500, body: { error: { message: 'database down', code: 1500 } } };
    const e2 = await caught(tools.composio_execute_tool!.execute({ tool_slug: 'GMAIL_SEND_EMAIL' }, turn));
    expect(e2).toMatchObject({
      code: 'upstream_error',
      message: 'the Composio API answered HTTP 500: database down',
      details: { upstreamStatus: 500, upstreamCode: 1500, url: `${base}/api/v3/tools/execute/GMAIL_SEND_EMAIL` },
    });
  });

  it("matrix: the homeserver's errcode is the upstream code; a 429 keeps its Retry-After", async () => {
    const client = new MatrixClient({ baseUrl: base, token: 'syt_secret', timeoutMs: 2000 });
    reply = {
      status: 429,
      body: { errcode: 'M_LIMIT_EXCEEDED', error: 'Too many requests', retry_after_ms: 2000 },
      headers: { 'retry-after': '2' },
    };
    const e = await caught(client.whoami());
    expect(e).toMatchObject({
      status: 502,
      code: 'upstream_error',
      message: 'the homeserver (GET /account/whoami) answered HTTP 429: M_LIMIT_EXCEEDED: Too many requests',
      details: {
        upstreamStatus: 429,
        upstreamCode: 'M_LIMIT_EXCEEDED',
        url: `${base}/_matrix/client/v3/account/whoami`,
        retryAfter: '2',
      },
    });
    expect(e.message).not.toContain('syt_secret');
    reply = { status: 500, body: { errcode: 'M_UNKNOWN', error: 'Internal server error' } };
    expect(await caught(client.join('!room:example.org'))).toMatchObject({
      message: `the homeserver (POST /join/${encodeURIComponent('!room:example.org')}) answered HTTP 500: M_UNKNOWN: Internal server error`,
      details: { upstreamStatus: 500, upstreamCode: 'M_UNKNOWN' },
    });
  });
});
