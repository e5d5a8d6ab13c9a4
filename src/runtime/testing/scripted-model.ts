/**
 * An in-process scripted model: a LanguageModel of the AI SDK (specification
 * v4) whose answers come from scripts (script.ts), for tests that need no
 * model server and no network — `createOracle({ model: scriptedModel() })`.
 * Each call (a model step) takes the next script; every call is recorded as
 * an OpenAI chat-completions body, so the same script functions and helpers
 * (systemPromptOf, lastToolResult) work for it and for the loopback server.
 * Failures map to what the OpenAI-compatible provider reports: http_error →
 * APICallError with the status, stream_error → an error part with the
 * provider's error object, malformed → a JSONParseError part, close → the
 * stream errors with a retryable APICallError, stall → nothing more until the call is aborted.
 */
import { APICallError, JSONParseError, type LanguageModel } from 'ai';
import {
  chunks,
  finishReasonOf,
  scriptQueue,
  type ChatRequestBody,
  type Script,
  type ScriptedModelBase,
} from './script.ts';

type ModelV4 = Extract<LanguageModel, { specificationVersion: 'v4' }>;
type CallOptions = Parameters<ModelV4['doStream']>[0];
type StreamResult = Awaited<ReturnType<ModelV4['doStream']>>;
type StreamPart = StreamResult['stream'] extends ReadableStream<infer P> ? P : never;
type GenerateResult = Awaited<ReturnType<ModelV4['doGenerate']>>;

export interface ScriptedModel extends ModelV4, ScriptedModelBase {
  /** Calls aborted before their script ended (an abort reached the model). */
  aborted: number;
}

const USAGE = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 10, text: 10, reasoning: undefined },
};

const FINISH: Record<string, 'stop' | 'length' | 'content-filter' | 'tool-calls' | 'error' | 'other'> = {
  stop: 'stop',
  length: 'length',
  content_filter: 'content-filter',
  tool_calls: 'tool-calls',
};

function finish(script: Script, failed: boolean) {
  const raw = finishReasonOf(script);
  return { unified: failed ? ('error' as const) : (FINISH[raw] ?? 'other'), raw };
}

/** The call as the OpenAI-compatible provider would send it (what scripts and assertions read). */
function chatBody(modelId: string, o: CallOptions, stream: boolean): ChatRequestBody {
  const messages: ChatRequestBody['messages'] = [];
  for (const m of o.prompt) {
    if (m.role === 'system') messages.push({ role: 'system', content: m.content });
    else if (m.role === 'user') {
      const only = m.content.length === 1 ? m.content[0] : undefined;
      messages.push({ role: 'user', content: only?.type === 'text' ? only.text : m.content });
    } else if (m.role === 'assistant') {
      let text = '';
      const calls: unknown[] = [];
      for (const p of m.content) {
        if (p.type === 'text') text += p.text;
        else if (p.type === 'tool-call')
          calls.push({
            id: p.toolCallId,
            type: 'function',
            function: { name: p.toolName, arguments: JSON.stringify(p.input) },
          });
      }
      messages.push({
        role: 'assistant',
        content: calls.length ? text || null : text,
        ...(calls.length ? { tool_calls: calls } : {}),
      });
    } else {
      for (const p of m.content) {
        if (p.type !== 'tool-result') continue;
        const out = p.output;
        const content =
          out.type === 'text' || out.type === 'error-text'
            ? out.value
            : out.type === 'execution-denied'
              ? (out.reason ?? 'Tool call execution denied.')
              : JSON.stringify(out.value);
        messages.push({ role: 'tool', tool_call_id: p.toolCallId, content });
      }
    }
  }
  const tools = (o.tools ?? [])
    .filter((t) => t.type === 'function')
    .map((t) => ({
      type: 'function',
      function: { name: t.name, description: t.description, parameters: t.inputSchema },
    }));
  return { model: modelId, messages, ...(tools.length ? { tools } : {}), stream };
}

function httpError(step: { status: number; body?: unknown }, body: ChatRequestBody): APICallError {
  const reply = step.body ?? { error: { message: `scripted error ${step.status}`, type: 'server_error' } };
  const message = (reply as { error?: { message?: unknown } }).error?.message;
  return new APICallError({
    message: typeof message === 'string' ? message : `HTTP ${step.status}`,
    url: 'scripted-model:/chat/completions',
    requestBodyValues: body,
    statusCode: step.status,
    responseBody: JSON.stringify(reply),
    data: reply,
  });
}

const abortError = (signal: AbortSignal) =>
  signal.reason instanceof Error ? signal.reason : new DOMException('This operation was aborted', 'AbortError');

/** Resolves after ms, or rejects when the call is aborted. */
function wait(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(abortError(signal));
    const t = ms === Infinity ? undefined : setTimeout(done, ms);
    function done() {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }
    function onAbort() {
      clearTimeout(t);
      reject(abortError(signal!));
    }
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

export function scriptedModel(opts: { modelId?: string } = {}): ScriptedModel {
  const q = scriptQueue();
  const modelId = opts.modelId ?? 'scripted-model';
  let seq = 0;
  /** Records the request, takes its script and numbers the call; a first http_error step is thrown here. */
  const begin = (o: CallOptions, stream: boolean) => {
    const body = chatBody(modelId, o, stream);
    q.requests.push({ body, headers: o.headers ?? {} });
    const script = q.next(body);
    const n = ++seq;
    const first = script.steps[0];
    if (first?.type === 'http_error') throw httpError(first, body);
    return { body, script, n };
  };

  const self: ScriptedModel = Object.assign(q, {
    specificationVersion: 'v4' as const,
    provider: 'scripted',
    modelId,
    supportedUrls: {},
    aborted: 0,

    async doGenerate(o: CallOptions): Promise<GenerateResult> {
      const { body, script, n } = begin(o, false);
      const content: GenerateResult['content'] = [];
      let i = 0;
      for (const s of script.steps) {
        if (s.type === 'text') content.push({ type: 'text', text: s.text });
        else if (s.type === 'reasoning') content.push({ type: 'reasoning', text: s.text });
        else if (s.type === 'tool_call')
          content.push({
            type: 'tool-call',
            toolCallId: s.id ?? `call_${n}_${i++}`,
            toolName: s.name,
            input: JSON.stringify(s.args),
          });
      }
      return {
        content,
        finishReason: finish(script, false),
        usage: USAGE,
        warnings: [],
        request: { body },
        response: { id: `scripted-${n}`, modelId, timestamp: new Date() },
      };
    },

    async doStream(o: CallOptions): Promise<StreamResult> {
      const call = { ...begin(o, true), modelId, signal: o.abortSignal };
      const stream = new ReadableStream<StreamPart>({
        start: (c) => {
          const state = { finished: false };
          streamScript(c, call, state).catch((e: unknown) => {
            if (!state.finished) self.aborted++;
            state.finished = true;
            try {
              c.error(e);
            } catch {
              // already closed by the consumer
            }
          });
        },
      });
      return { stream, request: { body: call.body } };
    },
  });
  return self;
}

interface StreamCall {
  body: ChatRequestBody;
  script: Script;
  /** The call's number, in its ids. */
  n: number;
  modelId: string;
  signal: AbortSignal | undefined;
}

/**
 * Enqueues the script's steps as the provider's stream parts, then `finish`; `state.finished` is set once the stream
 * ended as scripted (a close step included), so a throw before that counts as an abort.
 */
async function streamScript(
  c: ReadableStreamDefaultController<StreamPart>,
  { body, script, n, modelId, signal }: StreamCall,
  state: { finished: boolean },
): Promise<void> {
  c.enqueue({ type: 'stream-start', warnings: [] });
  c.enqueue({ type: 'response-metadata', id: `scripted-${n}`, modelId, timestamp: new Date() });
  const text = textParts(c, n);
  let failed = false;
  let toolIndex = 0;
  for (const s of script.steps) {
    if (signal?.aborted) throw abortError(signal);
    switch (s.type) {
      case 'text':
        for (const t of chunks(s.text, s.chunkSize ?? 4)) text.delta('text', t);
        break;
      case 'reasoning':
        for (const t of chunks(s.text, s.chunkSize ?? 8)) text.delta('reasoning', t);
        break;
      case 'tool_call': {
        text.close();
        const id = s.id ?? `call_${n}_${toolIndex++}`;
        const input = JSON.stringify(s.args);
        c.enqueue({ type: 'tool-input-start', id, toolName: s.name });
        c.enqueue({ type: 'tool-input-delta', id, delta: input });
        c.enqueue({ type: 'tool-input-end', id });
        c.enqueue({ type: 'tool-call', toolCallId: id, toolName: s.name, input });
        break;
      }
      case 'stall':
        await wait(Infinity, signal);
        break;
      case 'malformed':
        failed = true;
        c.enqueue({
          type: 'error',
          error: new JSONParseError({
            text: '{"id": "broken", "choices": [ {not json at all',
            cause: new SyntaxError('Unexpected token n in JSON'),
          }),
        });
        break;
      case 'stream_error':
        failed = true;
        c.enqueue({ type: 'error', error: { message: s.message, type: 'server_error', code: 500 } });
        break;
      case 'delay':
        await wait(s.ms, signal);
        break;
      case 'endless':
        // one chunk per macrotask (or per everyMs), so the consumer and an abort get their turn
        for (;;) {
          if (signal?.aborted) throw abortError(signal);
          text.delta('text', s.text);
          await wait(s.everyMs ?? 0, signal);
        }
      case 'close':
        state.finished = true;
        // what the provider reports for a connection that breaks mid-body: a retryable call error without a status
        c.error(
          new APICallError({
            message: 'terminated: the scripted model closed the connection',
            url: 'scripted-model:/chat/completions',
            requestBodyValues: body,
            isRetryable: true,
          }),
        );
        return;
      case 'http_error':
        break;
    }
  }
  text.close();
  c.enqueue({ type: 'finish', usage: USAGE, finishReason: finish(script, failed) });
  state.finished = true;
  c.close();
}

/** Text and reasoning deltas, each run between its start and end part (a change of kind or a tool call ends it). */
function textParts(c: ReadableStreamDefaultController<StreamPart>, n: number) {
  let open: 'text' | 'reasoning' | undefined;
  const close = () => {
    if (open) c.enqueue({ type: `${open}-end`, id: `${open}-${n}` });
    open = undefined;
  };
  const delta = (kind: 'text' | 'reasoning', text: string) => {
    if (open !== kind) {
      close();
      open = kind;
      c.enqueue({ type: `${kind}-start`, id: `${kind}-${n}` });
    }
    c.enqueue({ type: `${kind}-delta`, id: `${kind}-${n}`, delta: text });
  };
  return { close, delta };
}
