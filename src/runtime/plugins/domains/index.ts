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
 * Calls go through the one typed registry client (src/lib/registry/client.ts)
 * and carry ORACLEKIT_API_KEY (a key with any role: reads need no
 * particular role; the daemon and `oraclekit new` provision a read-only
 * `reader` key). Every call has a time-out (ORACLEKIT_REGISTRY_TIMEOUT_MS)
 * and follows the turn's abort; the key never appears in a message.
 *
 * With a key set, the plugin checks it at boot (a background start: pending
 * → loaded): a registry that refuses it (401/403) makes the plugin `failed`
 * with the reason, since every call would fail. A registry that is not found
 * or not reachable then is no verdict on the key: the plugin loads and its
 * calls say what happens when they are made. Without a key there is nothing
 * to check (loaded at boot); calls then explain how to set one.
 */
import type { DomainView } from '../../../lib/registry/types.ts';
import { RegistryClient } from '../../../lib/registry/client.ts';
import { isOracleKitError } from '../../../lib/errors.ts';
import { z } from 'zod';
import { definePlugin, defineTool } from '../../plugin.ts';
import { httpUrl } from '../_mcp/plugin.ts';
import { scrub } from '../_mcp/client.ts';
import { checkDid } from '../../../lib/did/did.ts';
import { DOMAIN_STATES, DOMAIN_TYPES } from '../../../lib/registry/domain.ts';
import { readDiscovery } from '../../../lib/discovery.ts';

const DomainsEnvSchema = z.object({
  ORACLEKIT_REGISTRY_URL: httpUrl('ORACLEKIT_API_KEY', 'http://127.0.0.1:4781').optional(),
  ORACLEKIT_API_KEY: z.string().trim().max(512).optional(),
  ORACLEKIT_REGISTRY_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(10_000),
  // where the local daemon's discovery file is (src/lib/paths.ts)
  ORACLEKIT_HOME: z.string().optional(),
  XDG_STATE_HOME: z.string().optional(),
});
type DomainsEnv = z.infer<typeof DomainsEnvSchema>;

const STATE_MEANING: Record<string, string> = {
  registered: 'registered, not verified yet (a representative can submit a verification proposal)',
  pending_verification: 'a verification proposal is open; voters are deciding',
  verified: 'verified by the voters',
  verification_rejected: 'the last verification proposal was rejected, vetoed or expired; it can be proposed again',
  deactivated: 'deactivated (terminal)',
};

const domainName = (d: DomainView) => (typeof d.metadata?.name === 'string' ? d.metadata.name : null);

function summary(d: DomainView) {
  return {
    did: d.id,
    name: domainName(d),
    type: d.type,
    class: d.class,
    state: d.state,
    active: d.active,
    eligible: d.eligible,
    alsoKnownAs: d.alsoKnownAs,
  };
}

function didProblem(field: string, v: string): string | undefined {
  const c = checkDid(v);
  return c.ok
    ? undefined
    : `${field} ${JSON.stringify(v)} is not a valid DID: ${c.reason ?? 'bad syntax'} (a domain DID looks like ` +
        `did:ixo:entity:<32 lowercase hex>)`;
}

/**
 * The registry as the tools read it: the one typed client
 * (src/lib/registry/client.ts) at the registry found at call time, its
 * errors turned into messages for the model (the key scrubbed).
 */
class RegistryReader {
  readonly env: DomainsEnv;
  constructor(env: DomainsEnv) {
    this.env = env;
  }

  private baseUrl(): string {
    if (this.env.ORACLEKIT_REGISTRY_URL) return this.env.ORACLEKIT_REGISTRY_URL.replace(/\/+$/, '');
    const d = readDiscovery({ ORACLEKIT_HOME: this.env.ORACLEKIT_HOME, XDG_STATE_HOME: this.env.XDG_STATE_HOME });
    if (!d)
      throw new Error(
        'no registry: ORACLEKIT_REGISTRY_URL is not set and the local oraclekit daemon is not running (start it ' +
          'with `oraclekit daemon start`, or set ORACLEKIT_REGISTRY_URL)',
      );
    return d.url.replace(/\/+$/, '');
  }

  private err(message: string, cause?: unknown): Error {
    return new Error(scrub(message, [this.env.ORACLEKIT_API_KEY]), cause === undefined ? undefined : { cause });
  }

  /** At boot: throws (→ failed) when the registry refuses the key; anything else leaves the plugin loaded. */
  async checkCredentials(): Promise<void> {
    let baseUrl: string;
    try {
      baseUrl = this.baseUrl();
    } catch {
      return; // no registry now; a call made later says so
    }
    const client = new RegistryClient({
      baseUrl,
      timeoutMs: this.env.ORACLEKIT_REGISTRY_TIMEOUT_MS,
      ...(this.env.ORACLEKIT_API_KEY ? { apiKey: this.env.ORACLEKIT_API_KEY } : {}),
    });
    try {
      await client.listDomains({ limit: 1 });
    } catch (e) {
      if (isOracleKitError(e) && (e.status === 401 || e.status === 403)) {
        throw this.err(
          `the registry (${new URL(client.baseUrl).origin}) refused ORACLEKIT_API_KEY (HTTP ${e.status}, ` +
            `${e.code}: ${e.message}); every domains tool would fail. Set ORACLEKIT_API_KEY to a key of that ` +
            `registry (read-only: \`oraclekit daemon keys create --did <oracle DID> --role reader\`)`,
        );
      }
      // unreachable, timed out or another answer: no verdict on the key
    }
  }

  /** Runs one call of the typed client; its errors become messages for the model. */
  async read<T>(call: (c: RegistryClient) => Promise<T>): Promise<T> {
    const client = new RegistryClient({
      baseUrl: this.baseUrl(),
      timeoutMs: this.env.ORACLEKIT_REGISTRY_TIMEOUT_MS,
      ...(this.env.ORACLEKIT_API_KEY ? { apiKey: this.env.ORACLEKIT_API_KEY } : {}),
    });
    try {
      return await call(client);
    } catch (e) {
      if (!isOracleKitError(e)) throw e;
      if (e.code === 'unavailable') throw this.err(e.message, e); // no answer: fetchJson's sentence
      const detail = `${e.code !== 'http_error' ? `${e.code}: ` : ''}${e.message}`;
      if (e.status === 401) {
        throw this.err(
          `the registry refused the oracle's credentials (HTTP 401, ` +
            `${detail})${this.env.ORACLEKIT_API_KEY ? '' : '. Set ORACLEKIT_API_KEY to a registry API key (read-only: `oraclekit daemon keys create --did <oracle DID> --role reader`)'}`,
        );
      }
      throw this.err(`the registry answered HTTP ${e.status} (${detail})`);
    }
  }

  /** read() of one domain: its DID checked first, and a 404 said as "no domain" with the way to find it. */
  async readDomain<T>(did: string, call: (c: RegistryClient) => Promise<T>): Promise<T> {
    const p = didProblem('did', did);
    if (p) throw new Error(p);
    try {
      return await this.read(call);
    } catch (e) {
      if (/HTTP 404/.test((e as Error).message))
        throw new Error(`no domain ${did} in the registry. Use search_domains to find it by name.`, { cause: e });
      throw e;
    }
  }
}

export const domainsPlugin = definePlugin<DomainsEnv>({
  name: 'domains',
  version: '1.0.0',
  manifest: {
    title: 'Domains registry',
    summary:
      'Look up domains (digital twins of organisations, projects, assets, devices, protocols, oracles) in the ' +
      'registry and their verification state.',
    whenToUse: [
      'the user asks about a project, organisation, device or protocol that may be registered, or gives a ' +
        'did:ixo:entity DID',
      'the user asks whether a domain is verified, active or eligible (e.g. before approving a sample design), or ' +
        'about its verification proposal and votes',
    ],
    whenNotToUse: ['registering or changing domains (the CLI `oraclekit domain` commands do that)'],
    visibility: 'always',
    stability: 'beta',
    category: 'registry',
    defaultState: 'on',
    dependsOn: [],
  },
  envSchema: DomainsEnvSchema,
  startsWhen: (env) => Boolean(env.ORACLEKIT_API_KEY),
  start: (ctx) => new RegistryReader(ctx.env).checkCredentials(),
  tools: (ctx) => {
    const reg = new RegistryReader(ctx.env);
    const timeoutMs = ctx.env.ORACLEKIT_REGISTRY_TIMEOUT_MS + 2000;
    return {
      search_domains: searchDomainsTool(reg, timeoutMs),
      get_domain: getDomainTool(reg, timeoutMs),
      get_domain_verification: getVerificationTool(reg, timeoutMs),
    };
  },
});

function searchDomainsTool(reg: RegistryReader, timeoutMs: number) {
  return defineTool({
    description:
      'Search the registry of domains. Filters: q (text in the name or alsoKnownAs, or an exact DID), type, ' +
      'state, class (protocol DID), controller (DID). ' +
      'Returns one line per domain {did, name, type, class, state, active, eligible} and nextCursor to page on.',
    inputSchema: z.object({
      q: z.string().trim().min(1).max(256).optional().describe('text to find in the name or alsoKnownAs'),
      type: z.enum(DOMAIN_TYPES).optional(),
      state: z
        .enum(DOMAIN_STATES)
        .optional()
        .describe('registered, pending_verification, verified, verification_rejected or deactivated'),
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
      const { q, type, state: status, limit = 10, cursor } = input;
      const page = await reg.read((c) =>
        c.listDomains(
          { q, type, status, class: input.class, controller: input.controller, limit, cursor },
          turn.abortSignal,
        ),
      );
      return {
        domains: page.items.map(summary),
        nextCursor: page.nextCursor,
        ...(page.items.length === 0 ? { hint: 'No domain matches; try fewer filters or other words.' } : {}),
      };
    },
  });
}

function getDomainTool(reg: RegistryReader, timeoutMs: number) {
  return defineTool({
    description:
      'Read one domain by DID: type, class, state, active, eligible, controllers, metadata, services (an ' +
      "Oracle's API is #api), validity dates and version.",
    inputSchema: z.object({
      did: z.string().min(1).max(256).describe('the domain DID, e.g. did:ixo:entity:0123…'),
    }),
    timeoutMs,
    execute: async ({ did }, turn) => {
      const d = await reg.readDomain(did, (c) => c.getDomain(did, turn.abortSignal));
      return { ...d, did: d.id, stateMeaning: STATE_MEANING[d.state] ?? d.state };
    },
  });
}

function getVerificationTool(reg: RegistryReader, timeoutMs: number) {
  return defineTool({
    description:
      "A domain's verification state: its state and what it means, active and eligible (only eligible domains " +
      'take part in activities such as approving a sample design), ' +
      'and its latest verification proposal: status (open, passed, executed, rejected, vetoed, expired, ' +
      'cancelled), tally, rule, deadline.',
    inputSchema: z.object({ did: z.string().min(1).max(256).describe('the domain DID') }),
    timeoutMs,
    execute: async ({ did }, turn) => {
      const { domain: d, proposal: p } = await reg.readDomain(did, (c) => c.verification(did, turn.abortSignal));
      return {
        did: d.id,
        name: domainName(d),
        state: d.state,
        stateMeaning: STATE_MEANING[d.state] ?? d.state,
        active: d.active,
        eligible: d.eligible,
        proposal: p
          ? {
              id: p.id,
              status: p.status,
              tally: p.tally,
              rule: p.rule,
              deadline: p.deadline,
              createdAt: p.createdAt,
              closedAt: p.closedAt,
              voters: p.snapshot.length,
              description: p.description,
            }
          : null,
      };
    },
  });
}
