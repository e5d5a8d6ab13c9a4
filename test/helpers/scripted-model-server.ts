/**
 * A real OpenAI-compatible chat-completions server on loopback that streams
 * scripted turns: text, reasoning (`reasoning_content`), tool calls, HTTP
 * errors, a stall mid-stream, a malformed stream, an abrupt close. The real
 * AI SDK client talks to it over HTTP; every request body is recorded so
 * tests can assert on what the model received (system prompt, tools,
 * messages).
 *
 * Scripts are consumed one per request (a model step). A script may also be
 * a function of the request body, e.g. to answer from the last tool result.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type ScriptStep =
  | { type: 'text'; text: string; chunkSize?: number }
  | { type: 'reasoning'; text: string; chunkSize?: number }
  | { type: 'tool_call'; name: string; args: unknown; id?: string }
  /** An HTTP error reply instead of a stream (must be the only step). */
  | { type: 'http_error'; status: number; body?: unknown }
  /** Stop sending but keep the connection open. */
  | { type: 'stall' }
  /** A data line that is not JSON. */
  | { type: 'malformed' }
  /** An error object inside the stream, as OpenRouter and others do. */
  | { type: 'stream_error'; message: string }
  | { type: 'delay'; ms: number }
  /** Destroy the socket mid-stream. */
  | { type: 'close' };

export interface Script {
  steps: ScriptStep[];
  /** finish_reason of the last chunk (default: tool_calls when the script calls tools, else stop). */
  finishReason?: string;
}

export type ScriptSource = Script | ((body: ChatRequestBody) => Script);

export interface ChatRequestBody {
  model: string;
  messages: { role: string; content: unknown; tool_calls?: unknown[]; tool_call_id?: string }[];
  tools?: { type: string; function: { name: string; description?: string; parameters?: unknown } }[];
  stream?: boolean;
  [k: string]: unknown;
}

export interface ScriptedModelServer {
  url: string;
  /** Base URL for LLM_BASE_URL (…/v1). */
  baseURL: string;
  requests: { body: ChatRequestBody; headers: IncomingMessage['headers'] }[];
  /** Requests whose client went away before the reply ended (abort reached upstream). */
  clientClosed: number;
  enqueue(...s: ScriptSource[]): void;
  /** The script used when the queue is empty. */
  fallback: ScriptSource;
  close(): Promise<void>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function chunks(text: string, size: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out.length ? out : [''];
}

/** Convenience builders. */
export const say = (text: string, chunkSize = 4): Script => ({ steps: [{ type: 'text', text, chunkSize }] });
export const callTool = (name: string, args: unknown, id?: string): Script => ({ steps: [{ type: 'tool_call', name, args, id }] });

export async function startScriptedModelServer(opts: { port?: number; model?: string } = {}): Promise<ScriptedModelServer> {
  const queue: ScriptSource[] = [];
  const self: ScriptedModelServer = {
    url: '',
    baseURL: '',
    requests: [],
    clientClosed: 0,
    enqueue: (...s) => queue.push(...s),
    fallback: say('(no script)'),
    close: async () => {},
  };
  let seq = 0;
  const open = new Set<ServerResponse>();

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (req.method === 'GET' && url.pathname.endsWith('/models')) {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ object: 'list', data: [{ id: opts.model ?? 'scripted-model', object: 'model' }] }));
      return;
    }
    if (req.method !== 'POST' || !url.pathname.endsWith('/chat/completions')) {
      res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'not found' } }));
      return;
    }
    let raw = '';
    for await (const c of req) raw += c;
    const body = JSON.parse(raw) as ChatRequestBody;
    self.requests.push({ body, headers: req.headers });
    const src = queue.shift() ?? self.fallback;
    const script = typeof src === 'function' ? src(body) : src;
    const id = `chatcmpl-${++seq}`;
    const created = Math.floor(Date.now() / 1000);
    const model = body.model;

    const first = script.steps[0];
    if (first?.type === 'http_error') {
      res.writeHead(first.status, { 'content-type': 'application/json' }).end(JSON.stringify(first.body ?? { error: { message: `scripted error ${first.status}`, type: 'server_error' } }));
      return;
    }
    let finished = false;
    res.on('close', () => {
      open.delete(res);
      if (!finished) self.clientClosed++;
    });
    open.add(res);

    const hasTools = script.steps.some((s) => s.type === 'tool_call');
    const finishReason = script.finishReason ?? (hasTools ? 'tool_calls' : 'stop');
    if (body.stream !== true) {
      const text = script.steps.filter((s) => s.type === 'text').map((s) => (s as { text: string }).text).join('');
      const toolCalls = script.steps
        .filter((s): s is Extract<ScriptStep, { type: 'tool_call' }> => s.type === 'tool_call')
        .map((s, i) => ({ id: s.id ?? `call_${seq}_${i}`, type: 'function', function: { name: s.name, arguments: JSON.stringify(s.args) } }));
      finished = true;
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({ id, object: 'chat.completion', created, model, choices: [{ index: 0, message: { role: 'assistant', content: text || null, ...(toolCalls.length ? { tool_calls: toolCalls } : {}) }, finish_reason: finishReason }], usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } }),
      );
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
    res.flushHeaders();
    const send = (delta: Record<string, unknown>, finish: string | null = null) =>
      res.write(`data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`);
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
          const callId = s.id ?? `call_${seq}_${toolIndex}`;
          const half = Math.ceil(argText.length / 2);
          send({ tool_calls: [{ index: toolIndex, id: callId, type: 'function', function: { name: s.name, arguments: argText.slice(0, half) } }] });
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
        case 'close':
          finished = true;
          res.destroy();
          return;
        case 'http_error':
          break;
      }
    }
    send({}, finishReason);
    res.write(`data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices: [], usage: { prompt_tokens: 10, completion_tokens: 10, total_tokens: 20 } })}\n\n`);
    res.write('data: [DONE]\n\n');
    finished = true;
    res.end();
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

/** The system prompt the model received in a recorded request. */
export function systemPromptOf(body: ChatRequestBody): string {
  return body.messages
    .filter((m) => m.role === 'system')
    .map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content)))
    .join('\n');
}

/** The last tool result message (parsed JSON when possible). */
export function lastToolResult(body: ChatRequestBody): unknown {
  const m = [...body.messages].reverse().find((x) => x.role === 'tool');
  if (!m) return undefined;
  const c = typeof m.content === 'string' ? m.content : JSON.stringify(m.content);
  try {
    return JSON.parse(c);
  } catch {
    return c;
  }
}
