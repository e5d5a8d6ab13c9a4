/**
 * The flags of every command that talks to a registry (kept apart from
 * registry-client.ts so that the client itself never loads oclif: the fast
 * path of `sample calc --save` imports only the client).
 */
import { REGISTRY_FLAGS } from './flag-spec.ts';
import { Flags } from '@oclif/core';
import type { ClientOptions } from './registry-client.ts';

// typed oclif flags (commands read them); text from the one spec that sample calc's fast path also uses
export const registryFlags = {
  registry: Flags.string({ description: REGISTRY_FLAGS.registry.description, helpGroup: REGISTRY_FLAGS.registry.helpGroup }),
  'api-key': Flags.string({ description: REGISTRY_FLAGS['api-key'].description, helpGroup: REGISTRY_FLAGS['api-key'].helpGroup }),
};

export function clientOptions(flags: { registry?: string; 'api-key'?: string }): ClientOptions {
  const o: ClientOptions = {};
  if (flags.registry) o.registry = flags.registry;
  if (flags['api-key']) o.apiKey = flags['api-key'];
  return o;
}

