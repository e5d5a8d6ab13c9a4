/**
 * The published @ixo/oracles-client-sdk against a runtime of this checkout:
 * runs the installer (scripts/ixo-sdk/install.mjs), loads the SDK, React 18
 * and @testing-library/react from its scratch directory (never the project's
 * React 19), answers the SDK's indexer query on loopback, and mounts a small
 * chat view (useChat + useOracleSessions in OraclesProvider) whose hook
 * results and rendered HTML the tests read.
 *
 * Test files call `ixoSuite()` at top level: it installs in beforeAll and
 * marks the file's tests skipped — with the installer's message — only when
 * the npm registry is unreachable.
 */
import { execFile } from 'node:child_process';
import { createServer } from 'node:http';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, afterEach, beforeAll, type TestContext } from 'vitest';
import { listenLoopback } from '../../helpers/loopback.ts';
import type { Wallet } from './wallet.ts';

const root = resolve(import.meta.dirname, '..', '..', '..');
const SCRATCH = resolve(process.env.IXO_SDK_DIR ?? join(root, '.cache', 'ixo-sdk'));
const EXIT_REGISTRY_UNREACHABLE = 75;

/* eslint-disable @typescript-eslint/no-explicit-any -- the SDK, React 18 and RTL come from the scratch directory at run time; their types are not the project's */
export type Any = any;

export interface Loaded {
  sdk: Any;
  React: Any;
  rtl: Any;
}

let installed: Promise<{ ok: true } | { ok: false; reason: string }> | undefined;

function runInstaller(): Promise<{ ok: true } | { ok: false; reason: string }> {
  installed ??= new Promise((res, rej) => {
    execFile(
      process.execPath,
      [join(root, 'scripts', 'ixo-sdk', 'install.mjs')],
      { env: { ...process.env, IXO_SDK_DIR: SCRATCH }, timeout: 900_000 },
      (err, _out, stderr) => {
        if (!err) return res({ ok: true });
        if ((err as { code?: number }).code === EXIT_REGISTRY_UNREACHABLE)
          return res({ ok: false, reason: stderr.trim() });
        rej(new Error(`scripts/ixo-sdk/install.mjs failed (${err.message}):\n${stderr}`));
      },
    );
  });
  return installed;
}

/** A loopback stand-in for the IXO indexer (blocksync GraphQL) the SDK asks for the oracle's entity. */
export interface Indexer {
  url: string;
  queries: { operationName?: string; variables?: Record<string, unknown> }[];
  /** The oracle entities it knows: DID → API URL. */
  oracles: Map<string, string>;
  close(): Promise<void>;
}

async function startIndexer(): Promise<Indexer> {
  const queries: Indexer['queries'] = [];
  const oracles = new Map<string, string>();
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      let q: { query?: string; operationName?: string; variables?: Record<string, unknown> } = {};
      try {
        q = JSON.parse(body) as typeof q;
      } catch {
        /* a GET or an empty body */
      }
      queries.push({
        operationName: q.operationName ?? /query\s+(\w+)/.exec(q.query ?? '')?.[1],
        variables: q.variables,
      });
      const id = String(q.variables?.id ?? '');
      const api = oracles.get(id);
      const entity = api
        ? {
            id,
            type: 'oracle',
            status: 0,
            metadata: {},
            owner: '',
            entityVerified: true,
            accounts: [],
            service: [
              { id: '{id}#api', type: 'oracleService', serviceEndpoint: api },
              { id: '{id}#ws', type: 'wsService', serviceEndpoint: api },
            ],
            linkedResource: [],
            settings: {},
          }
        : null;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ data: { entity } }));
    });
  });
  const l = await listenLoopback(server);
  return { url: `${l.url}/graphql`, queries, oracles, close: l.close };
}

let loaded: Promise<Loaded> | undefined;

/**
 * Imports the SDK (after BLOCKSYNC_GRAPHQL_URL points at the indexer: the chain client reads it at import time), React
 * 18 and RTL.
 */
function loadSdk(indexerUrl: string): Promise<Loaded> {
  loaded ??= (async () => {
    process.env.BLOCKSYNC_GRAPHQL_URL = indexerUrl;
    const nm = join(SCRATCH, 'node_modules');
    const imp = (p: string) => import(/* @vite-ignore */ pathToFileURL(join(nm, p)).href);
    const [sdk, react, rtl] = await Promise.all([
      imp('@ixo/oracles-client-sdk/dist/index.js'),
      imp('react/index.js'),
      imp('@testing-library/react/dist/@testing-library/react.esm.js'),
    ]);
    // a generous bound for waitFor on a 2-core machine shared with others (not an assertion on time)
    rtl.configure({ asyncUtilTimeout: 15_000 });
    return { sdk, React: react.default ?? react, rtl };
  })();
  return loaded;
}

/**
 * Installs (once per process) in beforeAll; returns a getter for what was
 * loaded. When the registry is unreachable every test of the file is skipped
 * with the installer's message.
 */
export function ixoSuite(setup: (l: Loaded, indexer: Indexer) => Promise<void> | void = () => {}): {
  get(ctx: TestContext): Loaded;
} {
  let skip: string | undefined;
  let l: Loaded | undefined;
  let idx: Indexer | undefined;
  beforeAll(async () => {
    const r = await runInstaller();
    if (!r.ok) {
      skip = `ixo-sdk suite skipped: ${r.reason}`;
      console.warn(skip);
      return;
    }
    idx = await startIndexer();
    l = await loadSdk(idx.url);
    await setup(l, idx);
  }, 900_000);
  afterAll(async () => {
    await idx?.close();
  });
  afterEach(() => {
    // RTL's own cleanup is registered only with vitest globals; the SDK's caches live in localStorage
    l?.rtl.cleanup();
    localStorage.clear();
  });
  return {
    get(ctx) {
      if (skip) ctx.skip(skip);
      if (!l) throw new Error('the ixo-sdk suite did not load');
      return l;
    },
  };
}

/** What the mounted chat view exposes: the hooks' latest results and every status it rendered. */
export interface Probe {
  chat: Any;
  sessions: Any;
  statuses: string[];
  /** The message list's HTML at each commit that changed it, with the status then (most recent last). */
  renders: { status: string; html: string }[];
}

interface MountOptions {
  oracleDid: string;
  baseUrl: string;
  wallet: Wallet;
  /** false: the provider gets no createInvocation (delegation-only login). */
  invocations?: boolean;
  /** false: the provider gets no createDelegation. */
  delegations?: boolean;
  sessionId?: string;
  onPaymentRequiredError?: (claims: string[]) => void;
}

/**
 * Tool-call and error components that render every prop they receive, so two
 * renderings are equal only when the SDK handed them the same props.
 */
const canonical = (v: unknown): unknown =>
  Array.isArray(v)
    ? v.map(canonical)
    : v !== null && typeof v === 'object'
      ? Object.fromEntries(
          Object.keys(v)
            .sort()
            .map((k) => [k, canonical((v as Record<string, unknown>)[k])]),
        )
      : v;

function uiComponents(React: Any): Record<string, Any> {
  const show = (kind: string) =>
    function Shown(props: Record<string, unknown>) {
      const { isLoading: _l, ...rest } = props;
      return React.createElement('pre', { 'data-component': kind }, JSON.stringify(canonical(rest)));
    };
  return { ToolCall: show('ToolCall'), Error: show('Error'), list_capabilities: show('list_capabilities') };
}

/** Mounts OraclesProvider > chat view. Returns the probe and RTL's render result. */
export function mountChat(
  l: Loaded,
  o: MountOptions,
): { probe: Probe; view: Any; setSession(id: string | undefined): void } {
  const { React, sdk, rtl } = l;
  const h = React.createElement;
  const ui = uiComponents(React);
  const probe: Probe = { chat: undefined, sessions: undefined, statuses: [], renders: [] };
  const overrides = { baseUrl: o.baseUrl, wsUrl: o.baseUrl };
  const initialWallet = { did: o.wallet.did, address: undefined, matrix: { accessToken: '', homeServer: '' } };
  const transactSignX = async () => {
    throw new Error('no chain transactions in this suite');
  };
  function View({ sessionId }: { sessionId?: string }) {
    const chat = sdk.useChat({
      oracleDid: o.oracleDid,
      sessionId,
      overrides,
      uiComponents: ui,
      streamingMode: 'immediate',
      onPaymentRequiredError: o.onPaymentRequiredError ?? (() => {}),
    });
    const sessions = sdk.useOracleSessions(o.oracleDid, overrides);
    probe.chat = chat;
    probe.sessions = sessions;
    if (probe.statuses[probe.statuses.length - 1] !== chat.status) probe.statuses.push(chat.status);
    const ref = React.useRef(null);
    React.useLayoutEffect(() => {
      const html = (ref.current as HTMLElement | null)?.innerHTML ?? '';
      const last = probe.renders[probe.renders.length - 1];
      if (last?.html !== html || last.status !== chat.status) probe.renders.push({ status: chat.status, html });
    });
    return h(
      'ol',
      { ref, 'data-testid': 'messages' },
      // a wrapped socket event that is not a message (message_cache_invalidation) becomes a transient
      // "Thinking..." row `${requestId}-message_cache_invalidation-${eventId}` in the SDK until the
      // refetch it triggers replaces the view: not a message, not compared
      (chat.messages as Any[])
        .filter((m: Any) => !String(m.id).includes('-message_cache_invalidation-'))
        .map((m: Any, i: number) =>
          h(
            'li',
            // a human row's id is the SDK's own UUID while streaming and the runtime's `${requestId}-human` in history:
            // not compared
            {
              key: `${i}`,
              'data-type': m.type,
              'data-id': m.type === 'human' ? undefined : m.id,
              'data-reasoning': m.isReasoning ? 'true' : undefined,
            },
            // a message's reasoning trace (`reasoning`), shown above its content as an app built on the SDK shows it:
            // an answer whose stored row carried the turn's reasoning would show it a second time
            typeof m.reasoning === 'string' && m.reasoning !== ''
              ? h('details', { 'data-reasoning-trace': 'true' }, h('summary', null, 'Thinking'), m.reasoning)
              : null,
            sdk.renderMessageContent(m.content, ui),
          ),
        ),
    );
  }
  const Provider = ({ children }: { children: Any }) =>
    h(
      sdk.OraclesProvider,
      {
        initialWallet,
        transactSignX,
        createInvocation: o.invocations === false ? undefined : o.wallet.createInvocation,
        createDelegation: o.delegations === false ? undefined : o.wallet.createDelegation,
      },
      children,
    );
  const view = rtl.render(h(View, { sessionId: o.sessionId }), { wrapper: Provider });
  // from here on React schedules renders as in a browser (no act() batching), so each status the SDK sets is rendered
  (globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = false;
  return {
    probe,
    view,
    setSession(id) {
      view.rerender(h(View, { sessionId: id }));
    },
  };
}
