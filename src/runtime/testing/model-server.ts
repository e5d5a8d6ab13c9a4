/**
 * A real OpenAI-compatible chat-completions server on loopback that streams
 * scripted turns (script.ts): text, reasoning (`reasoning_content`), tool
 * calls, HTTP errors, a stall mid-stream, a malformed stream, an abrupt
 * close. The runtime's default model (the OpenAI-compatible provider) talks
 * to it over HTTP at LLM_BASE_URL = baseURL; every request body and its
 * headers are recorded.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  chunks,
  finishReasonOf,
  scriptQueue,
  type ChatRequestBody,
  type Script,
  type ScriptedModelBase,
  type ScriptStep,
} from './script.ts';

export interface ScriptedModelServer extends ScriptedModelBase {
  url: string;
  /** Base URL for LLM_BASE_URL (…/v1). */
  baseURL: string;
  /** Requests whose client went away before the reply ended (abort reached upstream). */
  clientClosed: number;
  close(): Promise<void>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The usage chunk of a step: the script's, else 10 in and 10 out. */
function usageOf(script: Script): { prompt_tokens: number; completion_tokens: number; total_tokens: number } {
  const u = script.usage ?? { inputTokens: 10, outputTokens: 10 };
  return {
    prompt_tokens: u.inputTokens,
    completion_tokens: u.outputTokens,
    total_tokens: u.inputTokens + u.outputTokens,
  };
}

export async function startScriptedModelServer(
  opts: { port?: number; model?: string } = {},
): Promise<ScriptedModelServer> {
  const q = scriptQueue();
  const self: ScriptedModelServer = Object.assign(q, { url: '', baseURL: '', clientClosed: 0, close: async () => {} });
  let seq = 0;
  const open = new Set<ServerResponse>();

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (req.method === 'GET' && url.pathname.endsWith('/models'))
      return sendJson(res, 200, { object: 'list', data: [{ id: opts.model ?? 'scripted-model', object: 'model' }] });
    if (req.method !== 'POST' || !url.pathname.endsWith('/chat/completions'))
      return sendJson(res, 404, { error: { message: 'not found' } });
    let raw = '';
    for await (const c of req) raw += c;
    const body = JSON.parse(raw) as ChatRequestBody;
    q.requests.push({ body, headers: req.headers });
    const script = q.next(body);
    const reply: Reply = { id: `chatcmpl-${++seq}`, created: Math.floor(Date.now() / 1000), model: body.model, seq };

    const first = script.steps[0];
    if (first?.type === 'http_error') {
      const fallback = { error: { message: `scripted error ${first.status}`, type: 'server_error' } };
      return sendJson(res, first.status, first.body ?? fallback, first.headers);
    }
    const state = { finished: false };
    res.on('close', () => {
      open.delete(res);
      if (!state.finished) self.clientClosed++;
    });
    open.add(res);
    if (body.stream !== true) {
      state.finished = true;
      return sendJson(res, 200, completionOf(script, reply));
    }
    await streamScript(res, script, reply, state);
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((e: unknown) => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: String(e) } }));
    });
  });
  server.keepAliveTimeout = 60_000; // shorter than the client pool's idle time causes ECONNRESET races
  await new Promise<void>((r) => server.listen(opts.port ?? 0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  self.url = `http://127.0.0.1:${port}`;
  self.baseURL = `${self.url}/v1`;
  self.close = async () => {
    for (const r of open) r.destroy();
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
  };
  return self;
}

/** One completion's ids: its chunks' id, created and model, and the request's number (for tool call ids). */
interface Reply {
  id: string;
  created: number;
  model: string;
  seq: number;
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { ...headers, 'content-type': 'application/json' }).end(JSON.stringify(body));
}

/** The whole script as one chat.completion (a request without `stream: true`). */
function completionOf(script: Script, { id, created, model, seq }: Reply) {
  const text = script.steps
    .filter((s) => s.type === 'text')
    .map((s) => (s as { text: string }).text)
    .join('');
  const toolCalls = script.steps
    .filter((s): s is Extract<ScriptStep, { type: 'tool_call' }> => s.type === 'tool_call')
    .map((s, i) => ({
      id: s.id ?? `call_${seq}_${i}`,
      type: 'function',
      function: { name: s.name, arguments: JSON.stringify(s.args) },
    }));
  const message = { role: 'assistant', content: text || null, ...(toolCalls.length ? { tool_calls: toolCalls } : {}) };
  return {
    id,
    object: 'chat.completion',
    created,
    model,
    choices: [{ index: 0, message, finish_reason: finishReasonOf(script) }],
    usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
  };
}

/**
 * Streams the script's steps as chat.completion.chunk frames, then the finish reason, the usage and [DONE];
 * `state.finished` is set once the reply ended as scripted (a stall or an endless stream never ends).
 */
async function streamScript(res: ServerResponse, script: Script, reply: Reply, state: { finished: boolean }) {
  const { id, created, model } = reply;
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
  res.flushHeaders();
  const chunk = (o: Record<string, unknown>) =>
    res.write(`data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, ...o })}\n\n`);
  const send = (delta: Record<string, unknown>, finish: string | null = null) =>
    chunk({ choices: [{ index: 0, delta, finish_reason: finish }] });
  send({ role: 'assistant', content: '' });
  let toolIndex = 0;
  for (const s of script.steps) {
    if (res.destroyed) return;
    switch (s.type) {
      case 'text':
        for (const c of chunks(s.text, s.chunkSize ?? 4)) send({ content: c });
        break;
      case 'reasoning':
        for (const c of chunks(s.text, s.chunkSize ?? 8)) send({ reasoning_content: c });
        break;
      case 'tool_call': {
        const argText = JSON.stringify(s.args);
        const callId = s.id ?? `call_${reply.seq}_${toolIndex}`;
        const half = Math.ceil(argText.length / 2);
        const fn = { name: s.name, arguments: argText.slice(0, half) };
        send({ tool_calls: [{ index: toolIndex, id: callId, type: 'function', function: fn }] });
        send({ tool_calls: [{ index: toolIndex, function: { arguments: argText.slice(half) } }] });
        toolIndex++;
        break;
      }
      case 'stall':
        return; // never ends; the client's time-out must fire
      case 'malformed':
        res.write('data: {"id": "broken", "choices": [ {not json at all\n\n');
        break;
      case 'stream_error':
        res.write(`data: ${JSON.stringify({ error: { message: s.message, type: 'server_error', code: 500 } })}\n\n`);
        break;
      case 'delay':
        await sleep(s.ms);
        break;
      case 'endless':
        // until the client goes away, waiting for the socket to drain (the server's own memory stays flat)
        while (!res.destroyed) {
          if (!send({ content: s.text })) await drainedOrClosed(res);
          if (s.everyMs) await sleep(s.everyMs);
        }
        return;
      case 'close':
        state.finished = true;
        res.destroy();
        return;
      case 'http_error':
        break;
    }
  }
  send({}, finishReasonOf(script));
  chunk({ choices: [], usage: usageOf(script) });
  res.write('data: [DONE]\n\n');
  state.finished = true;
  res.end();
}

/** Resolves once the response can take more data, or is gone. */
function drainedOrClosed(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}
