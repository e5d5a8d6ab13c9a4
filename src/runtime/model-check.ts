/**
 * Is the default model usable? (docs/plugins.md, "Boot" and "/ready"). The
 * runtime checks the OpenAI-compatible endpoint it was given (LLM_BASE_URL
 * with LLM_PROVIDER_API_KEY) — never a model passed as an option, and not
 * when no endpoint is configured (a turn then answers model_not_configured).
 *
 * - A blank key with an endpoint that is not on this machine: not ready, at
 *   once, and a boot warning naming LLM_PROVIDER_API_KEY (a hosted provider
 *   refuses every turn without one; a model server on loopback — Ollama,
 *   llama.cpp — may need none, so there the probe decides).
 * - The probe: GET <LLM_BASE_URL>/models with the key. No answer (DNS, refused,
 *   time-out) → not ready, a warning naming LLM_BASE_URL; 401/403 → not ready,
 *   a warning naming LLM_PROVIDER_API_KEY; any other answer → ready (some
 *   servers do not serve /models, but they answered).
 * - `/ready` awaits the check; a failed check is run again by the next
 *   `/ready` (one at a time), so a model server started later is seen.
 */
import type { BootLogger } from './boot.ts';
import { fetchJson, type FetchFailure } from '../lib/fetch-json.ts';

interface ModelStatus {
  ready: boolean;
  /** Why not, without secrets. */
  reason?: string;
  /** The variable to set. */
  set?: 'LLM_PROVIDER_API_KEY' | 'LLM_BASE_URL';
}

const LOOPBACK = /^(localhost|.*\.localhost|127\.\d+\.\d+\.\d+|\[::1\]|::1)$/i;

function isLoopbackUrl(url: string): boolean {
  try {
    return LOOPBACK.test(new URL(url).hostname);
  } catch {
    return false;
  }
}

export class ModelCheck {
  private status: ModelStatus | undefined;
  private running: Promise<ModelStatus> | undefined;
  private warned = new Set<string>();
  private readonly baseUrl: string;
  private readonly apiKey: string | undefined;
  private readonly log: BootLogger;
  private readonly timeoutMs: number;

  /** undefined when there is nothing to check (a model given as an option, or no endpoint configured). */
  static create(o: {
    given: boolean;
    baseUrl: string | undefined;
    apiKey: string | undefined;
    log: BootLogger;
    timeoutMs?: number;
  }): ModelCheck | undefined {
    if (o.given || !o.baseUrl) return undefined;
    return new ModelCheck(o.baseUrl, o.apiKey, o.log, o.timeoutMs ?? 3000);
  }

  private constructor(baseUrl: string, apiKey: string | undefined, log: BootLogger, timeoutMs: number) {
    this.baseUrl = baseUrl.replace(/\/+$/, '');
    this.apiKey = apiKey?.trim() ? apiKey : undefined;
    this.log = log;
    this.timeoutMs = timeoutMs;
    if (!this.apiKey && !isLoopbackUrl(this.baseUrl)) {
      this.status = {
        ready: false,
        reason: `LLM_PROVIDER_API_KEY is blank: the model at ${this.shownUrl()} refuses turns without a key`,
        set: 'LLM_PROVIDER_API_KEY',
      };
      this.warn(this.status);
    }
  }

  /** The last result (undefined before the first check ends). */
  current(): ModelStatus | undefined {
    return this.status;
  }

  /** Checks unless already ready or blank-keyed (those do not change without a restart); one check at a time. */
  check(): Promise<ModelStatus> {
    if (this.status?.ready || (this.status?.set === 'LLM_PROVIDER_API_KEY' && !this.apiKey))
      return Promise.resolve(this.status);
    return (this.running ??= this.probe().then((s) => {
      this.status = s;
      this.running = undefined;
      if (!s.ready) this.warn(s);
      return s;
    }));
  }

  private shownUrl(): string {
    return this.baseUrl.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/@\s]*@/i, '$1…@');
  }

  private warn(s: ModelStatus): void {
    const line = `[boot] warning: model not ready: ${s.reason}. Set '${s.set}' in the oracle's environment (.env)`;
    if (this.warned.has(line)) return;
    this.warned.add(line);
    this.log.error(line);
  }

  private async probe(): Promise<ModelStatus> {
    let status: number;
    try {
      ({ status } = await fetchJson({
        url: `${this.baseUrl}/models`,
        bearer: this.apiKey,
        timeoutMs: this.timeoutMs,
        what: 'the model',
        fail: (f) => new ProbeFailed(f),
      }));
    } catch (e) {
      const f = (e as ProbeFailed).failure;
      const why =
        f.reason === 'timeout' ? `no answer within ${this.timeoutMs} ms` : (f.details.cause ?? f.details.error);
      return { ready: false, reason: `the model at ${this.shownUrl()} is unreachable (${why})`, set: 'LLM_BASE_URL' };
    }
    if (status === 401 || status === 403) {
      return {
        ready: false,
        reason: `the model at ${this.shownUrl()} refused ${this.apiKey ? 'the key' : 'a request without a key'} (HTTP ${status})`,
        set: 'LLM_PROVIDER_API_KEY',
      };
    }
    return { ready: true };
  }
}

/** A probe that got no answer, with why (fetch-json.ts). */
class ProbeFailed extends Error {
  readonly failure: FetchFailure;
  constructor(f: FetchFailure) {
    super(f.message);
    this.failure = f;
  }
}
