/**
 * The model registry: which language model a turn runs on. A turn names a
 * model id (or none: config.model, else LLM_MODEL); the `model` option of
 * createOracle decides what an id means (one model for every id, or a
 * factory), else the OpenAI-compatible provider at LLM_BASE_URL. A turn may
 * name only an id GET /models lists, so the operator's key never pays for a
 * model they did not choose.
 */
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import type { LanguageModel } from 'ai';
import { runtimeError } from '../lib/protocol/errors.ts';
import { lineBoundedFetch } from './agent/index.ts';
import { preconnect } from '../lib/fetch-json.ts';
import { outboundDispatcher, outboundFetch } from './outbound.ts';
import type { OracleConfig } from './plugin.ts';
import { STALL_MAX_MS, type RuntimeEnv } from './settings.ts';

/** A language model of the AI SDK (an object: a model id string is `config.model`). */
export type OracleModel = Exclude<LanguageModel, string>;

export interface ModelRegistryOptions {
  config: OracleConfig;
  settings: RuntimeEnv;
  /** createOracle's `model` option: one model for every id, or a factory by id. */
  given?: OracleModel | ((id: string) => OracleModel);
  /** What `model_not_configured` tells the user to do. */
  hint?: string;
}

export class ModelRegistry {
  private readonly modelOf: (id: string) => OracleModel;
  /**
   * Opens a connection to the model provider (LLM_BASE_URL) ahead of a turn that must not wait for one (a call's,
   * as its user starts speaking): a connection idle too long was closed by the provider or the pool, and a new one
   * costs a TCP and a TLS handshake before the turn's request is sent. Nothing for a model given to createOracle.
   */
  readonly preconnect: () => void;
  /**
   * The provider of a turn's model answered in memory by a canned reply (agent/rehearse.ts), to run the model path
   * once before a user's turn does; undefined for a model given to createOracle or none configured.
   */
  readonly rehearsal: () => OracleModel | undefined;
  private readonly o: ModelRegistryOptions;

  constructor(o: ModelRegistryOptions) {
    this.o = o;
    const given = o.given;
    if (given) {
      this.modelOf = typeof given === 'function' ? given : () => given;
      this.preconnect = () => {};
      this.rehearsal = () => undefined;
    } else {
      const m = openAICompatibleModels(o.settings, o.hint);
      this.modelOf = m.modelOf;
      this.preconnect = m.preconnect;
      this.rehearsal = () => {
        const id = this.defaultId;
        return id === undefined ? undefined : m.rehearsal(id);
      };
    }
  }

  /** The model a turn that names none runs on: config.model, else LLM_MODEL, else the given model's own id. */
  private get defaultId(): string | undefined {
    return this.o.config.model ?? this.o.settings.LLM_MODEL ?? this.ownId;
  }

  /** The id of the model given as an object (a scripted model's), when one is. */
  private get ownId(): string | undefined {
    return typeof this.o.given === 'object' ? this.o.given.modelId : undefined;
  }

  /** The model of a turn: the request's id, else config.model, else LLM_MODEL, else the given model's own id. */
  model(id?: string): OracleModel {
    const modelId = id ?? this.defaultId;
    if (!modelId) throw notConfigured(this.o.hint);
    return this.modelOf(modelId);
  }

  /** What GET /models answers: the default first, then config.models. */
  models(): { models: { id: string; name: string }[]; default: string | null } {
    const first = this.defaultId;
    const ids = [...new Set([first, ...(this.o.config.models ?? [])].filter((x): x is string => !!x))];
    return { models: ids.map((id) => ({ id, name: id })), default: ids[0] ?? null };
  }

  /** Refuses (model_not_listed) an id GET /models does not list. */
  assertListed(id: string): void {
    const listed = this.models().models.map((m) => m.id);
    if (listed.includes(id)) return;
    throw runtimeError(
      'model_not_listed',
      `model ${JSON.stringify(id.slice(0, 100))} is not offered by this oracle; use one GET /models lists: ${listed.join(', ') || '(none)'}`,
      { field: 'model', value: id.slice(0, 100), valid: listed.join(', ') || 'none: this oracle lists no model' },
    );
  }
}

function notConfigured(hint: string | undefined) {
  return runtimeError(
    'model_not_configured',
    `no model configured: ${hint ?? 'set LLM_BASE_URL and the model in oracle.config.json'}`,
  );
}

/**
 * The default model: the OpenAI-compatible provider at LLM_BASE_URL. One
 * model object per (endpoint, key, model): building one compiles the
 * provider's zod chunk schemas (~0.5 ms), which a turn must not pay twice.
 */
function openAICompatibleModels(
  s: RuntimeEnv,
  hint: string | undefined,
): {
  modelOf: (id: string) => OracleModel;
  preconnect: () => void;
  rehearsal: (id: string) => OracleModel | undefined;
} {
  const cache = new Map<string, OracleModel>();
  let transport: typeof fetch | undefined;
  const preconnectTo = () => {
    if (s.LLM_BASE_URL) preconnect(s.LLM_BASE_URL, { fetch: (transport ??= modelTransport()) });
  };
  const modelOf = (modelId: string): OracleModel => {
    const baseURL = s.LLM_BASE_URL;
    if (!baseURL) throw notConfigured(hint);
    let m = cache.get(modelId);
    if (!m) {
      m = provider(baseURL, (transport ??= modelTransport())).chatModel(modelId);
      if (cache.size >= 32) cache.delete(cache.keys().next().value!);
      cache.set(modelId, m);
    }
    return m;
  };
  const provider = (baseURL: string, f: typeof fetch) =>
    createOpenAICompatible({
      name: 'oracle-llm',
      baseURL,
      apiKey: s.LLM_PROVIDER_API_KEY,
      includeUsage: true,
      fetch: lineBoundedFetch(s.ORACLE_MODEL_MAX_LINE_BYTES, f),
    });
  // the same provider and model id, its requests answered in memory
  const rehearsal = (modelId: string) =>
    s.LLM_BASE_URL ? provider(s.LLM_BASE_URL, async () => rehearsalReply()).chatModel(modelId) : undefined;
  return { modelOf, preconnect: preconnectTo, rehearsal };
}

/**
 * The provider's HTTP: the outbound transport's (undici, a connect time-out, keep-alive), on a dispatcher of its own
 * whose headers and body wait as long as LLM_STALL_TIMEOUT_MS may be set to, so that a provider gone silent is the
 * stall watchdog's to end, with its error, whatever the setting.
 */
function modelTransport(): typeof fetch {
  return outboundFetch(outboundDispatcher({ headersMs: STALL_MAX_MS, bodyMs: STALL_MAX_MS }));
}

/**
 * The reply of an OpenAI-compatible chat completion, streamed (server-sent events): a sentence, then the finish with
 * its usage. What a rehearsal's provider is answered, in memory
 * (agent/rehearse.ts).
 */
export function rehearsalReply(): Response {
  const chunk = (delta: object, finish: string | null, usage?: object) =>
    `data: ${JSON.stringify({
      id: 'rehearsal',
      object: 'chat.completion.chunk',
      created: 0,
      model: 'rehearsal',
      choices: [{ index: 0, delta, finish_reason: finish }],
      ...(usage ? { usage } : {}),
    })}\n\n`;
  const body = [
    chunk({ role: 'assistant', content: 'Hello. ' }, null),
    chunk({ content: 'How can I help?' }, null),
    chunk({}, 'stop', { prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 }),
    'data: [DONE]\n\n',
  ].join('');
  return new Response(body, { headers: { 'content-type': 'text/event-stream' } });
}
