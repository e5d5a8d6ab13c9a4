/**
 * A neutral description of a command's flags: the single source from which
 * both the oclif flags (help, manifest, completion) and the fast path's
 * node:util parseArgs options are built. Kept free of @oclif/core so the fast
 * path of `sample calc` never loads it.
 *
 * Every command declares its flags this way (`toOclifFlags` in
 * oclif-flags.ts turns them into typed oclif flags). The fast path handles
 * FlagSpec (string and boolean flags); the other fields — required, allowNo,
 * env, exclusive, and integer flags — are for commands that always run
 * through oclif.
 */
export interface FlagSpec {
  type: 'string' | 'boolean';
  description: string;
  char?: string;
  multiple?: boolean;
  options?: readonly string[];
  default?: string | boolean;
  helpGroup?: string;
  required?: boolean;
  /** A boolean with a --no- form. */
  allowNo?: boolean;
  /** An environment variable that gives the value when the flag is absent. */
  env?: string;
  /** Flags that may not be given with this one. */
  exclusive?: readonly string[];
}

export type FlagSpecs = Record<string, FlagSpec>;

/** An integer flag (oclif only: the fast path's commands have none). */
export interface IntegerFlagSpec {
  type: 'integer';
  description: string;
  char?: string;
  default?: number;
  min?: number;
  max?: number;
  required?: boolean;
  helpGroup?: string;
}

/** Any command's flags (FlagSpecs is the subset the fast path parses). */
export type CommandFlagSpecs = Record<string, FlagSpec | IntegerFlagSpec>;

/** --json, which every data-printing command has. */
export const JSON_FLAG = { type: 'boolean', description: 'Print machine-readable JSON (errors as JSON on stderr).', default: false } as const satisfies FlagSpec;

/** Flags every data-printing command has (BaseCommand.baseFlags). */
export const BASE_FLAGS: FlagSpecs = { json: JSON_FLAG };

/** Flags of every command that talks to a registry (the local daemon unless --registry). */
export const REGISTRY_FLAGS = {
  registry: { type: 'string', description: 'Base URL of a remote registry (default: the local daemon, started on first use). Env ORACLEKIT_REGISTRY.', helpGroup: 'REGISTRY' },
  'api-key': { type: 'string', description: 'API key for the registry. Env ORACLEKIT_API_KEY, or saved with `daemon keys create --save`.', helpGroup: 'REGISTRY' },
} as const satisfies FlagSpecs;

export type ParsedFlags<S extends FlagSpecs> = {
  [K in keyof S]: S[K]['type'] extends 'boolean' ? boolean : S[K]['multiple'] extends true ? string[] | undefined : S[K]['default'] extends string ? string : string | undefined;
};
