/**
 * A neutral description of a command's flags: the single source from which
 * both the oclif flags (help, manifest, completion) and the fast path's
 * node:util parseArgs options are built. Kept free of @oclif/core so the fast
 * path of `sample calc` never loads it.
 */
export interface FlagSpec {
  type: 'string' | 'boolean';
  description: string;
  char?: string;
  multiple?: boolean;
  options?: readonly string[];
  default?: string | boolean;
  helpGroup?: string;
  /** Constraints oclif enforces (the fast path falls back to oclif when one is not met). */
  required?: boolean;
  exactlyOne?: readonly string[];
  exclusive?: readonly string[];
}

export type FlagSpecs = Record<string, FlagSpec>;

/** Flags every data-printing command has (BaseCommand.baseFlags). */
export const BASE_FLAGS: FlagSpecs = {
  json: { type: 'boolean', description: 'Print machine-readable JSON (errors as JSON on stderr).', default: false },
};

/** Flags of every command that talks to a registry (the local daemon unless --registry). */
export const REGISTRY_FLAGS = {
  registry: { type: 'string', description: 'Base URL of a remote registry (default: the local daemon, started on first use). Env ORACLEKIT_REGISTRY.', helpGroup: 'REGISTRY' },
  'api-key': { type: 'string', description: 'API key for the registry. Env ORACLEKIT_API_KEY, or saved with `daemon keys create --save`.', helpGroup: 'REGISTRY' },
} as const satisfies FlagSpecs;

export type ParsedFlags<S extends FlagSpecs> = {
  [K in keyof S]: S[K]['type'] extends 'boolean' ? boolean : S[K]['multiple'] extends true ? string[] | undefined : S[K]['default'] extends string ? string : string | undefined;
};
