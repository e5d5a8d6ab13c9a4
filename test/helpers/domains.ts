/**
 * Registry set-up through the real CLI, as a person does it: a key from the daemon, a Protocol domain, and a domain
 * of another type (an Oracle, a Project) in that Protocol's class. Each step must succeed (its stderr is the message).
 */
import { expect } from 'vitest';
import type { CliResult } from './cli.ts';

type Cli = (args: string[]) => Promise<CliResult>;

const json = (s: string) => JSON.parse(s) as Record<string, unknown>;

/** `daemon keys create` for a DID with these roles; the key. */
export async function createKey(cli: Cli, did: string, roles: string[]): Promise<string> {
  const k = await cli(['daemon', 'keys', 'create', '--did', did, ...roles.flatMap((r) => ['--role', r]), '--json']);
  expect(k.code, k.stderr).toBe(0);
  return json(k.stdout).key as string;
}

/**
 * A Protocol domain named `protocol`, then a domain of `type` named `name` in its class (with `extra` flags such as
 * `--service` or `--also-known-as`); the second domain's DID.
 */
export async function registerInProtocol(
  cli: Cli,
  key: string,
  d: { protocol: string; type: string; name: string; extra?: string[] },
): Promise<string> {
  const proto = await cli([
    'domain',
    'register',
    '--type',
    'Protocol',
    '--name',
    d.protocol,
    '--json',
    '--api-key',
    key,
  ]);
  expect(proto.code, proto.stderr).toBe(0);
  const reg = await cli([
    'domain',
    'register',
    '--type',
    d.type,
    '--class',
    json(proto.stdout).id as string,
    '--name',
    d.name,
    ...(d.extra ?? []),
    '--json',
    '--api-key',
    key,
  ]);
  expect(reg.code, reg.stderr).toBe(0);
  return json(reg.stdout).id as string;
}

/** `domain update`: the Oracle domain's #api and #ws services now point at the runtime at `url`. */
export async function pointOracleAt(cli: Cli, key: string, did: string, url: string): Promise<void> {
  const services = ['--service', `#api=oracleService,${url}`, '--service', `#ws=oracleService,${url}`];
  const upd = await cli(['domain', 'update', did, ...services, '--json', '--api-key', key]);
  expect(upd.code, upd.stderr).toBe(0);
}
