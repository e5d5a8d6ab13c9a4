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
    if (req.method === 'GET' && url.pathname.endsWith('/models')) {
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ object: 'list', data: [{ id: opts.model ?? 'scripted-model', object: 'model' }] }));
      return;
    }
    if (req.method !== 'POST' || !url.pathname.endsWith('/chat/completions')) {
      res
        .writeHead(404, { 'content-type': 'application/json' })
        .end(JSON.stringify({ error: { message: 'not found' } }));
      return;
    }
    let raw = '';
    for await (const c of req) raw += c;
    const body = JSON.parse(raw) as ChatRequestBody;
    q.requests.push({ body, headers: req.headers });
    const script = q.next(body);
    const id = `chatcmpl-${++seq}`;
    const created = Math.floor(Date.now() / 1000);
    const model = body.model;

    const first = script.steps[0];
    if (first?.type === 'http_error') {
      res
        .writeHead(first.status, { 'content-type': 'application/json' })
        .end(
          JSON.stringify(first.body ?? { error: { message: `scripted error ${first.status}`, type: 'server_error' } }),
        );
      return;
    }
    let finished = false;
    res.on('close', () => {
      open.delete(res);
      if (!finished) self.clientClosed++;
    });
    open.add(res);

    const finishReason = finishReasonOf(script);
    if (body.stream !== true) {
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
      finished = true;
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          id,
          object: 'chat.completion',
          created,
          model,
          choices: [
            {
              index: 0,
              message: {
                role: 'assistant',
                content: text || null,
                ...(toolCalls.length ? { tool_calls: toolCalls } : {}),
              },
              finish_reason: finishReason,
            },
          ],
          usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
        }),
      );
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
    res.flushHeaders();
    const send = (delta: Record<string, unknown>, finish: string | null = null) =>
      res.write(
        `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`,
      );
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
          send({
            tool_calls: [
              {
                index: toolIndex,
                id: callId,
                type: 'function',
                function: { name: s.name, arguments: argText.slice(0, half) },
              },
            ],
          });
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
          finished = true;
          res.destroy();
          return;
        case 'http_error':
          break;
      }
    }
    send({}, finishReason);
    res.write(
      `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices: [], usage: usageOf(script) })}\n\n`,
    );
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
