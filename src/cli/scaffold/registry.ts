/**
 * The oracle's domain in the registry: its class (a Protocol domain), the
 * Oracle domain with #api and #ws services, and changing those services.
 *
 * The class: `--class <did>` when given (it must be an active Protocol
 * domain); else the network's saved `oracleClass`; else the Protocol domain
 * known as `oraclekit:oracle-protocol:v1` in that registry; on the local
 * registry it is registered on first use (your DID becomes its controller).
 */
import { errorFromReply } from '../../lib/registry/client.ts';
import type { DomainView, Page, Service } from '../../lib/registry/types.ts';
import { cliError } from '../errors.ts';
import type { Connection } from '../registry/networks.ts';
import { readNetwork, saveNetwork } from '../registry/settings.ts';

const ORACLE_PROTOCOL_AKA = 'oraclekit:oracle-protocol:v1';

/** A domain as the registry returns it (src/lib/registry/types.ts). */
export type Domain = DomainView;

async function getDomain(c: Connection, did: string): Promise<Domain> {
  const r = await c.client.request<Domain>('GET', `/v1/domains/${encodeURIComponent(did)}`);
  if (r.status !== 200) throw errorFromReply(r, `reading ${did}`);
  return r.body;
}

export async function resolveClass(
  c: Connection,
  given: string | undefined,
  env = process.env,
): Promise<{ did: string; created: boolean }> {
  if (given) {
    const d = await getDomain(c, given);
    if (d.type !== 'Protocol' || !d.active)
      throw cliError(
        'invalid_class',
        `--class ${given} is a ${d.active ? 'active' : 'inactive'} ${d.type} domain; an oracle's class is an active Protocol domain`,
        { field: 'class', value: given, valid: 'the DID of an active Protocol domain' },
      );
    return { did: d.id, created: false };
  }
  const saved = (await readNetwork(c.network, env)).oracleClass;
  if (saved) {
    const r = await c.client.request<Domain>('GET', `/v1/domains/${encodeURIComponent(saved)}`);
    if (r.status === 200 && r.body.active && r.body.type === 'Protocol') return { did: saved, created: false };
  }
  const r = await c.client.request<Page<Domain>>('GET', '/v1/domains', {
    query: { type: 'Protocol', q: ORACLE_PROTOCOL_AKA, limit: 50 },
  });
  if (r.status !== 200) throw errorFromReply(r, 'searching the oracle protocol');
  const found = r.body.items.find((d) => d.alsoKnownAs === ORACLE_PROTOCOL_AKA && d.active);
  if (found) {
    await saveNetwork(c.network, { oracleClass: found.id }, env);
    return { did: found.id, created: false };
  }
  if (!c.local)
    throw cliError(
      'no_oracle_class',
      `the ${c.network} registry has no Protocol domain ${ORACLE_PROTOCOL_AKA}; pass --class <did of the Protocol domain your oracle follows>`,
      { field: 'class' },
    );
  const created = await c.client.request<Domain>('POST', '/v1/domains', {
    headers: { 'idempotency-key': `oraclekit-oracle-protocol-v1` },
    body: {
      type: 'Protocol',
      alsoKnownAs: ORACLE_PROTOCOL_AKA,
      metadata: {
        name: 'Oracle protocol (oraclekit)',
        description:
          'The class of oracles scaffolded by oraclekit new: an agent runtime serving the oraclekit wire protocol at its #api and #ws services.',
      },
    },
  });
  if (created.status !== 201 && created.status !== 200)
    throw errorFromReply(created, 'registering the oracle protocol');
  await saveNetwork(c.network, { oracleClass: created.body.id }, env);
  return { did: created.body.id, created: true };
}

function oracleServices(apiUrl: string, wsUrl: string): Service[] {
  return [
    { id: '#api', type: 'oracleService', serviceEndpoint: apiUrl },
    { id: '#ws', type: 'oracleService', serviceEndpoint: wsUrl },
  ];
}

export async function registerOracle(
  c: Connection,
  o: {
    class: string;
    name: string;
    description: string;
    price: number;
    model: string;
    apiUrl: string;
    wsUrl: string;
    idempotencyKey?: string;
  },
): Promise<Domain> {
  const r = await c.client.request<Domain>('POST', '/v1/domains', {
    ...(o.idempotencyKey ? { headers: { 'idempotency-key': o.idempotencyKey } } : {}),
    body: {
      type: 'Oracle',
      class: o.class,
      metadata: { name: o.name, description: o.description, price: o.price, model: o.model },
      services: oracleServices(o.apiUrl, o.wsUrl),
    },
  });
  if (r.status !== 201 && r.status !== 200) throw errorFromReply(r, 'registering the oracle');
  return r.body;
}

/** Replaces the #api and #ws services (other services kept), with If-Match on the version read. */
export async function updateServices(
  c: Connection,
  did: string,
  apiUrl: string,
  wsUrl: string,
): Promise<{ before: Domain; after: Domain }> {
  const before = await getDomain(c, did);
  const keep = (before.services ?? []).filter((s) => !/(^|#)(api|ws)$/.test(s.id));
  const services = [...oracleServices(apiUrl, wsUrl), ...keep];
  const r = await c.client.request<Domain>('PATCH', `/v1/domains/${encodeURIComponent(did)}`, {
    headers: { 'if-match': `"${before.version}"` },
    body: { services },
  });
  if (r.status !== 200) throw errorFromReply(r, `updating the services of ${did}`);
  return { before, after: r.body };
}

/** Deactivates a domain made by a run that then failed (best effort). */
export async function deactivate(c: Connection, did: string): Promise<void> {
  await c.client.request('POST', `/v1/domains/${encodeURIComponent(did)}/deactivate`).catch(() => {});
}
