/**
 * `new`'s registration: the network's registry (the local daemon, started when it is not running, which says so while
 * it starts and when it has), an API key for you, the oracle class, then the Oracle domain with its #api and #ws
 * services at the oracle's URL.
 */
import { connect, type Connection, type Network } from '../registry/networks.ts';
import { registerOracle, resolveClass, type Domain } from './registry.ts';
import type { Answers } from './questions.ts';

export interface Registered {
  conn: Connection;
  cls: { did: string; created: boolean };
  domain: Domain;
}

export async function register(
  o: { network: Network; principal: string; registry?: string; apiKey?: string; class?: string; url: string },
  a: Answers,
  env: NodeJS.ProcessEnv,
  log: (line: string) => void,
): Promise<Registered> {
  const conn = await connect({
    network: o.network,
    principal: o.principal,
    registry: o.registry,
    apiKey: o.apiKey,
    env,
  });
  if (conn.createdKey) log(`Created an API key for ${o.principal} on the local registry (saved in your settings)`);
  const cls = await resolveClass(conn, o.class, env);
  if (cls.created) log(`Registered the oracle protocol ${cls.did} (the class of your oracles) on the local registry`);
  const domain = await registerOracle(conn, {
    class: cls.did,
    name: a.name,
    description: a.description,
    price: a.price,
    model: a.model,
    apiUrl: o.url,
    wsUrl: o.url,
    idempotencyKey: `oraclekit-new-${crypto.randomUUID()}`,
  });
  log(`Registered ${a.name} as ${domain.id} on ${o.network} (${conn.url})`);
  return { conn, cls, domain };
}
