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
}

export type FlagSpecs = Record<string, FlagSpec>;

/** Flags every data-printing command has (BaseCommand.baseFlags). */
export const BASE_FLAGS: FlagSpecs = {
  json: { type: 'boolean', description: 'Print machine-readable JSON (errors as JSON on stderr).', default: false },
};

export type ParsedFlags<S extends FlagSpecs> = {
  [K in keyof S]: S[K]['type'] extends 'boolean' ? boolean : S[K]['multiple'] extends true ? string[] | undefined : S[K]['default'] extends string ? string : string | undefined;
};
