/**
 * The script of a scripted model (oraclekit/testing): what the model answers
 * to each call, one script per model step. The same scripts drive the
 * in-process model (scripted-model.ts: a LanguageModel of the AI SDK, no
 * network) and the loopback OpenAI-compatible server (model-server.ts: the
 * real provider over real HTTP). A script may be a function of the request,
 * given as an OpenAI chat-completions body in both cases, e.g. to answer from
 * the last tool result.
 */

export type ScriptStep =
  | { type: 'text'; text: string; chunkSize?: number }
  | { type: 'reasoning'; text: string; chunkSize?: number }
  | { type: 'tool_call'; name: string; args: unknown; id?: string }
  /** An HTTP error reply instead of a stream (must be the only step), with its headers (e.g. retry-after). */
  | { type: 'http_error'; status: number; body?: unknown; headers?: Record<string, string> }
  /** Stop sending but keep the stream open (the runtime's stall time-out must fire). */
  | { type: 'stall' }
  /** A data line that is not JSON. */
  | { type: 'malformed' }
  /** An error object inside the stream, as OpenRouter and others do. */
  | { type: 'stream_error'; message: string }
  | { type: 'delay'; ms: number }
  /**
   * Text without end, chunk after chunk (a pause of everyMs between chunks, default none) until the client goes away.
   */
  | { type: 'endless'; text: string; everyMs?: number }
  /** The connection breaks mid-stream. */
  | { type: 'close' };

export interface Script {
  steps: ScriptStep[];
  /** finish_reason of the last chunk (default: tool_calls when the script calls tools, else stop). */
  finishReason?: string;
  /** The tokens the model reports for this step (default 10 in, 10 out). */
  usage?: { inputTokens: number; outputTokens: number };
}

/** A model request as an OpenAI chat-completions body (what the loopback server receives). */
export interface ChatRequestBody {
  model: string;
  messages: { role: string; content: unknown; tool_calls?: unknown[]; tool_call_id?: string }[];
  tools?: { type: string; function: { name: string; description?: string; parameters?: unknown } }[];
  stream?: boolean;
  [k: string]: unknown;
}

export type ScriptSource = Script | ((body: ChatRequestBody) => Script);

/**
 * A recorded model request (headers: the HTTP headers the loopback server got; the in-process model's call headers).
 */
export interface ScriptedRequest {
  body: ChatRequestBody;
  headers: Record<string, string | string[] | undefined>;
}

/** The queue both scripted models take their scripts from, and what they recorded. */
export interface ScriptedModelBase {
  /** Every request, in order (assert on the system prompt and the tools offered). */
  requests: ScriptedRequest[];
  /** Scripts for the next model steps, one per step. */
  enqueue(...s: ScriptSource[]): void;
  /** The script used when the queue is empty. */
  fallback: ScriptSource;
}

export function scriptQueue(): ScriptedModelBase & { next(body: ChatRequestBody): Script } {
  const queue: ScriptSource[] = [];
  const self = {
    requests: [] as ScriptedRequest[],
    enqueue: (...s: ScriptSource[]) => void queue.push(...s),
    fallback: say('(no script)') as ScriptSource,
    next(body: ChatRequestBody): Script {
      const src = queue.shift() ?? self.fallback;
      return typeof src === 'function' ? src(body) : src;
    },
  };
  return self;
}

/** A text answer streamed in chunks of chunkSize characters. */
export const say = (text: string, chunkSize = 4): Script => ({ steps: [{ type: 'text', text, chunkSize }] });
/** One tool call (the next script usually answers from its result). */
export const callTool = (name: string, args: unknown, id?: string): Script => ({
  steps: [{ type: 'tool_call', name, args, id }],
});

export function chunks(text: string, size: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out.length ? out : [''];
}

/** The finish reason of a script (OpenAI's spelling). */
export function finishReasonOf(script: Script): string {
  return script.finishReason ?? (script.steps.some((s) => s.type === 'tool_call') ? 'tool_calls' : 'stop');
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
