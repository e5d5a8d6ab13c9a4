/**
 * The flags of every command that talks to a registry (kept apart from
 * registry-client.ts so that the client itself never loads oclif: the fast
 * path of `sample calc --save` imports only the client).
 */
import { Flags } from '@oclif/core';
import type { ClientOptions } from './registry-client.ts';

export const registryFlags = {
  registry: Flags.string({ description: 'Base URL of a remote registry (default: the local daemon, started on first use). Env ORACLEKIT_REGISTRY.', helpGroup: 'REGISTRY' }),
  'api-key': Flags.string({ description: 'API key for the registry. Env ORACLEKIT_API_KEY, or saved with `daemon keys create --save`.', helpGroup: 'REGISTRY' }),
};

export function clientOptions(flags: { registry?: string; 'api-key'?: string }): ClientOptions {
  const o: ClientOptions = {};
  if (flags.registry) o.registry = flags.registry;
  if (flags['api-key']) o.apiKey = flags['api-key'];
  return o;
}

