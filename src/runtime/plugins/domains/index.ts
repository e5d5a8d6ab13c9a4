/**
 * domains (runtime.md): read-only tools over the registry API (registry.md,
 * "Domains"): search domains, read one, and read its verification state
 * (state, active, eligible, latest proposal with status and tally).
 * Always visible; enabled by nothing.
 *
 * The registry is ORACLEKIT_REGISTRY_URL, or else the local oraclekit daemon
 * found through its discovery file at call time (never started from here).
 * Both come from the plugin's context (ctx.env: the runtime's environment
 * parsed by DomainsEnvSchema; the discovery file under its ORACLEKIT_HOME or
 * XDG_STATE_HOME), never from process.env directly.
 * Requests carry ORACLEKIT_API_KEY (a key with any role: reads need no
 * particular role). Every call has a time-out (ORACLEKIT_REGISTRY_TIMEOUT_MS)
 * and follows the turn's abort; the key never appears in a message.
 */
import type { DomainView } from '../../../lib/registry/domain.ts';
import { z } from 'zod';
import { definePlugin, defineTool } from '../../plugin.ts';
import { httpUrl } from '../_mcp/plugin.ts';
import { fetchCause, scrub } from '../_mcp/client.ts';
import { checkDid } from '../../../lib/did/index.ts';
import { DOMAIN_STATES, DOMAIN_TYPES } from '../../../lib/registry/domain.ts';
import { readDiscovery } from '../../../lib/discovery.ts';

const blankToUndefined = (v: unknown) => (typeof v === 'string' && v.trim() === '' ? undefined : v);

export const DomainsEnvSchema = z.object({
  ORACLEKIT_REGISTRY_URL: z.preprocess(blankToUndefined, httpUrl('ORACLEKIT_API_KEY', 'http://127.0.0.1:4781').optional()),
  ORACLEKIT_API_KEY: z.preprocess(blankToUndefined, z.string().trim().max(512).optional()),
  ORACLEKIT_REGISTRY_TIMEOUT_MS: z.preprocess(blankToUndefined, z.coerce.number().int().min(100).max(120_000).default(10_000)),
  // where the local daemon's discovery file is (src/lib/paths.ts)
  ORACLEKIT_HOME: z.preprocess(blankToUndefined, z.string().optional()),
  XDG_STATE_HOME: z.preprocess(blankToUndefined, z.string().optional()),
});
export type DomainsEnv = z.infer<typeof DomainsEnvSchema>;


const STATE_MEANING: Record<string, string> = {
  registered: 'registered, not verified yet (a representative can submit a verification proposal)',
  pending_verification: 'a verification proposal is open; voters are deciding',
  verified: 'verified by the voters',
  verification_rejected: 'the last verification proposal was rejected, vetoed or expired; it can be proposed again',
  deactivated: 'deactivated (terminal)',
};

function summary(d: DomainView) {
  const name = typeof d.metadata?.name === 'string' ? d.metadata.name : null;
  return { did: d.id, name, type: d.type, class: d.class, state: d.state, active: d.active, eligible: d.eligible, alsoKnownAs: d.alsoKnownAs };
}

function didProblem(field: string, v: string): string | undefined {
  const c = checkDid(v);
  return c.ok ? undefined : `${field} ${JSON.stringify(v)} is not a valid DID: ${c.reason ?? 'bad syntax'} (a domain DID looks like did:ixo:entity:<32 lowercase hex>)`;
}

export class RegistryReader {
  readonly env: DomainsEnv;
  constructor(env: DomainsEnv) {
    this.env = env;
  }

  private baseUrl(): string {
    if (this.env.ORACLEKIT_REGISTRY_URL) return this.env.ORACLEKIT_REGISTRY_URL.replace(/\/+$/, '');
    const d = readDiscovery({ ORACLEKIT_HOME: this.env.ORACLEKIT_HOME, XDG_STATE_HOME: this.env.XDG_STATE_HOME });
    if (!d) throw new Error('no registry: ORACLEKIT_REGISTRY_URL is not set and the local oraclekit daemon is not running (start it with `oraclekit daemon start`, or set ORACLEKIT_REGISTRY_URL)');
    return d.url.replace(/\/+$/, '');
  }

  private err(message: string, cause?: unknown): Error {
    return new Error(scrub(message, [this.env.ORACLEKIT_API_KEY]), cause === undefined ? undefined : { cause });
  }

  async get<T>(path: string, query: Record<string, string | undefined> = {}, signal?: AbortSignal): Promise<T> {
    const base = this.baseUrl();
    const u = new URL(base + path);
    for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== '') u.searchParams.set(k, v);
    const timeout = AbortSignal.timeout(this.env.ORACLEKIT_REGISTRY_TIMEOUT_MS);
    const headers: Record<string, string> = { accept: 'application/json' };
    if (this.env.ORACLEKIT_API_KEY) headers.authorization = `Bearer ${this.env.ORACLEKIT_API_KEY}`;
    let res: Response;
    try {
      res = await fetch(u, { headers, signal: signal ? AbortSignal.any([timeout, signal]) : timeout });
    } catch (e) {
      if (timeout.aborted) throw this.err(`the registry did not answer within ${this.env.ORACLEKIT_REGISTRY_TIMEOUT_MS} ms`, e);
      if (signal?.aborted) throw this.err('the registry call was aborted', e);
      const cause = fetchCause(e);
      throw this.err(`the registry (${u.origin}) is unreachable: ${(e as Error).message}${cause ? ` (${cause})` : ''}`, e);
    }
    const text = await res.text().catch(() => '');
    let body: unknown;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      body = undefined;
    }
    if (res.ok) return body as T;
    const b = (body ?? {}) as { code?: string; message?: string };
    const detail = `${b.code ? `${b.code}: ` : ''}${b.message ?? (text.slice(0, 200) || 'no details')}`;
    if (res.status === 401) {
      throw this.err(`the registry refused the oracle's credentials (HTTP 401, ${detail})${this.env.ORACLEKIT_API_KEY ? '' : '. Set ORACLEKIT_API_KEY to a registry API key (`oraclekit daemon keys create --did <oracle DID> --role member`)'}`);
    }
    throw this.err(`the registry answered HTTP ${res.status} (${detail})`);
  }
}

export const domainsPlugin = definePlugin<DomainsEnv>({
  name: 'domains',
  version: '1.0.0',
  manifest: {
    title: 'Domains registry',
    summary: 'Look up domains (digital twins of organisations, projects, assets, devices, protocols, oracles) in the registry and their verification state.',
    whenToUse: [
      'the user asks about a project, organisation, device or protocol that may be registered, or gives a did:ixo:entity DID',
      'the user asks whether a domain is verified, active or eligible (e.g. before approving a sample design), or about its verification proposal and votes',
    ],
    whenNotToUse: ['registering or changing domains (the CLI `oraclekit domain` commands do that)'],
    visibility: 'always',
    stability: 'beta',
    category: 'registry',
    defaultState: 'on',
    dependsOn: [],
  },
  envSchema: DomainsEnvSchema as unknown as z.ZodType<DomainsEnv>,
  tools: (ctx) => {
    const reg = new RegistryReader(ctx.env);
    const timeoutMs = ctx.env.ORACLEKIT_REGISTRY_TIMEOUT_MS + 2000;
    return {
      search_domains: defineTool({
        description:
          'Search the registry of domains. Filters: q (text in the name or alsoKnownAs, or an exact DID), type, state, class (protocol DID), controller (DID). ' +
          'Returns one line per domain {did, name, type, class, state, active, eligible} and nextCursor to page on.',
        inputSchema: z.object({
          q: z.string().trim().min(1).max(256).optional().describe('text to find in the name or alsoKnownAs'),
          type: z.enum(DOMAIN_TYPES).optional(),
          state: z.enum(DOMAIN_STATES).optional().describe('registered, pending_verification, verified, verification_rejected or deactivated'),
          class: z.string().max(256).optional().describe('DID of the Protocol domain the domains belong to'),
          controller: z.string().max(256).optional().describe('DID of a controller'),
          limit: z.number().int().min(1).max(50).optional().describe('results per page (default 10)'),
          cursor: z.string().max(64).optional().describe('nextCursor of the previous page'),
        }),
        timeoutMs,
        execute: async (input, turn) => {
          for (const f of ['class', 'controller'] as const) {
            const v = input[f];
            const p = v === undefined ? undefined : didProblem(f, v);
            if (p) throw new Error(p);
          }
          const page = await reg.get<{ items: DomainView[]; nextCursor: string | null }>(
            '/v1/domains',
            { q: input.q, type: input.type, status: input.state, class: input.class, controller: input.controller, limit: String(input.limit ?? 10), cursor: input.cursor },
            turn.abortSignal,
          );
          return { domains: page.items.map(summary), nextCursor: page.nextCursor, ...(page.items.length === 0 ? { hint: 'No domain matches; try fewer filters or other words.' } : {}) };
        },
      }),
      get_domain: defineTool({
        description: 'Read one domain by DID: type, class, state, active, eligible, controllers, metadata, services (an Oracle\'s API is #api), validity dates and version.',
        inputSchema: z.object({ did: z.string().min(1).max(256).describe('the domain DID, e.g. did:ixo:entity:0123…') }),
        timeoutMs,
        execute: async ({ did }, turn) => {
          const p = didProblem('did', did);
          if (p) throw new Error(p);
          try {
            const d = await reg.get<DomainView>(`/v1/domains/${encodeURIComponent(did)}`, {}, turn.abortSignal);
            return { ...d, did: d.id, stateMeaning: STATE_MEANING[d.state] ?? d.state };
          } catch (e) {
            if (/HTTP 404/.test((e as Error).message)) throw new Error(`no domain ${did} in the registry. Use search_domains to find it by name.`, { cause: e });
            throw e;
          }
        },
      }),
      get_domain_verification: defineTool({
        description:
          "A domain's verification state: its state and what it means, active and eligible (only eligible domains take part in activities such as approving a sample design), " +
          'and its latest verification proposal: status (open, passed, executed, rejected, vetoed, expired, cancelled), tally, rule, deadline.',
        inputSchema: z.object({ did: z.string().min(1).max(256).describe('the domain DID') }),
        timeoutMs,
        execute: async ({ did }, turn) => {
          const p = didProblem('did', did);
          if (p) throw new Error(p);
          let r: { domain: DomainView; proposal: null | { id: string; status: string; tally: unknown; rule: unknown; deadline: string; createdAt: string; closedAt: string | null; description: string | null; snapshot: unknown[] } };
          try {
            r = await reg.get(`/v1/domains/${encodeURIComponent(did)}/verification-proposals`, {}, turn.abortSignal);
          } catch (e) {
            if (/HTTP 404/.test((e as Error).message)) throw new Error(`no domain ${did} in the registry. Use search_domains to find it by name.`, { cause: e });
            throw e;
          }
          const d = r.domain;
          return {
            did: d.id,
            name: typeof d.metadata?.name === 'string' ? d.metadata.name : null,
            state: d.state,
            stateMeaning: STATE_MEANING[d.state] ?? d.state,
            active: d.active,
            eligible: d.eligible,
            proposal: r.proposal
              ? { id: r.proposal.id, status: r.proposal.status, tally: r.proposal.tally, rule: r.proposal.rule, deadline: r.proposal.deadline, createdAt: r.proposal.createdAt, closedAt: r.proposal.closedAt, voters: r.proposal.snapshot.length, description: r.proposal.description }
              : null,
          };
        },
      }),
    };
  },
});
