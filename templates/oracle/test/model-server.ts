/**
 * A scripted OpenAI-compatible chat-completions server on loopback, so the
 * tests run the real runtime and model client without a model provider.
 * Each request takes the next script: text, or tool calls; the requests are
 * kept for assertions.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export type Step = { text: string } | { toolCalls: { name: string; args: unknown }[] };
export type Script = Step | ((body: ChatBody) => Step);

export interface ChatBody {
  model: string;
  stream?: boolean;
  messages: { role: string; content: unknown; tool_call_id?: string }[];
  tools?: { function: { name: string } }[];
}

export interface ModelServer {
  baseURL: string;
  requests: ChatBody[];
  enqueue(...s: Script[]): void;
  close(): Promise<void>;
}

export async function startModelServer(): Promise<ModelServer> {
  const queue: Script[] = [];
  const requests: ChatBody[] = [];
  let n = 0;
  const server: Server = createServer(async (req, res) => {
    if (req.method === 'GET' && req.url?.endsWith('/models')) {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ object: 'list', data: [{ id: 'scripted', object: 'model' }] }));
      return;
    }
    let raw = '';
    for await (const c of req) raw += c;
    const body = JSON.parse(raw) as ChatBody;
    requests.push(body);
    const next = queue.shift() ?? { text: 'ok' };
    const step = typeof next === 'function' ? next(body) : next;
    const id = `chatcmpl-${++n}`;
    const base = { id, object: 'chat.completion.chunk', created: Math.floor(Date.now() / 1000), model: body.model };
    const calls = 'toolCalls' in step ? step.toolCalls.map((c, i) => ({ id: `call_${n}_${i}`, type: 'function', function: { name: c.name, arguments: JSON.stringify(c.args) } })) : [];
    const finish = calls.length ? 'tool_calls' : 'stop';
    if (body.stream !== true) {
      const message = { role: 'assistant', content: 'text' in step ? step.text : null, ...(calls.length ? { tool_calls: calls } : {}) };
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ...base, object: 'chat.completion', choices: [{ index: 0, message, finish_reason: finish }] }));
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    const send = (delta: unknown, finishReason: string | null = null) => res.write(`data: ${JSON.stringify({ ...base, choices: [{ index: 0, delta, finish_reason: finishReason }] })}\n\n`);
    send({ role: 'assistant', content: '' });
    if ('text' in step) for (let i = 0; i < step.text.length; i += 8) send({ content: step.text.slice(i, i + 8) });
    calls.forEach((c, index) => send({ tool_calls: [{ index, ...c }] }));
    send({}, finish);
    res.end('data: [DONE]\n\n');
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', () => ok()));
  const port = (server.address() as AddressInfo).port;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests,
    enqueue: (...s) => queue.push(...s),
    close: () => new Promise<void>((ok) => { server.closeAllConnections(); server.close(() => ok()); }),
  };
}

/** The content of the last tool message the model received. */
export function lastToolResult(body: ChatBody): unknown {
  const m = [...body.messages].reverse().find((x) => x.role === 'tool');
  if (!m) return undefined;
  const c = typeof m.content === 'string' ? m.content : JSON.stringify(m.content);
  try {
    return JSON.parse(c);
  } catch {
    return c;
  }
}
