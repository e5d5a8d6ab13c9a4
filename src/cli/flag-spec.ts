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
import type { ParseArgsConfig } from 'node:util';
import { EXIT_CODES, type OracleKitError } from '../lib/errors.ts';
import { writeErrorBody } from './errors-print.ts';
import { cliError } from './errors.ts';

// not an import: on the fast path (fast-path.ts)
const { parseArgs } = process.getBuiltinModule('node:util');
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
  /** A boolean with a --no- form. */
  allowNo?: boolean;
  /** An environment variable that gives the value when the flag is absent. */
  env?: string;
  /** Flags that may not be given with this one. */
  exclusive?: readonly string[];
  /** Flags that must be given with this one. */
  dependsOn?: readonly string[];
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
  exactlyOne?: readonly string[];
  exclusive?: readonly string[];
  dependsOn?: readonly string[];
}

/** Any command's flags (FlagSpecs is the subset the fast path parses). */
export type CommandFlagSpecs = Record<string, FlagSpec | IntegerFlagSpec>;

/** --json, which every data-printing command has. */
export const JSON_FLAG = {
  type: 'boolean',
  description: 'Print machine-readable JSON (errors as JSON on stderr).',
  default: false,
} as const satisfies FlagSpec;

/** Flags every data-printing command has (BaseCommand.baseFlags). */
export const BASE_FLAGS: FlagSpecs = { json: JSON_FLAG };

/** The page of a registry listing: its size and where the previous page ended. */
export const PAGE_FLAGS = {
  limit: { type: 'integer', description: 'Page size (1..200).', default: 50 },
  cursor: { type: 'string', description: 'nextCursor of the previous page.' },
} as const satisfies CommandFlagSpecs;

/** Flags of every command that talks to a registry (the local daemon unless --registry). */
export const REGISTRY_FLAGS = {
  registry: {
    type: 'string',
    description:
      'Base URL of a remote registry (default: the local daemon, started on first use). Env ORACLEKIT_REGISTRY.',
    helpGroup: 'REGISTRY',
  },
  'api-key': {
    type: 'string',
    description: 'API key for the registry. Env ORACLEKIT_API_KEY, or saved with `daemon keys create --save`.',
    helpGroup: 'REGISTRY',
  },
} as const satisfies FlagSpecs;

export type ParsedFlags<S extends CommandFlagSpecs> = {
  [K in keyof S]: S[K]['type'] extends 'boolean'
    ? boolean
    : S[K]['type'] extends 'integer'
      ? S[K]['default'] extends number
        ? number
        : number | undefined
      : S[K] extends { multiple: true }
        ? string[] | undefined
        : S[K]['default'] extends string
          ? string
          : S[K] extends { required: true }
            ? string
            : string | undefined;
};

/**
 * The constraints a flag spec can carry, each with the check oclif makes for it. The fast path
 * (src/cli/fast-path.ts) runs these same checks on its parsed values; when one fails it hands the
 * arguments to oclif, which reports it with its own message. A new constraint field of FlagSpec
 * is a new entry here (the record's type lists them all).
 */
const FLAG_CONSTRAINTS: {
  [K in 'required' | 'exactlyOne' | 'exclusive' | 'dependsOn' | 'options']-?: (
    name: string,
    spec: FlagSpec,
    given: (flag: string) => boolean,
    value: unknown,
  ) => boolean;
} = {
  required: (name, s, given) => !s.required || given(name),
  exactlyOne: (_name, s, given) => !s.exactlyOne || s.exactlyOne.filter(given).length === 1,
  exclusive: (name, s, given) => !s.exclusive || !given(name) || !s.exclusive.some(given),
  dependsOn: (name, s, given) => !s.dependsOn || !given(name) || s.dependsOn.every(given),
  options: (_name, s, _given, v) =>
    !s.options || v === undefined || (Array.isArray(v) ? v : [v]).every((x) => s.options!.includes(x as string)),
};

/**
 * The values of parsed flags checked against every constraint of their specs, with the defaults
 * filled in (booleans false): undefined when a constraint is not met.
 */
export function checkedFlagValues(
  specs: FlagSpecs,
  values: Record<string, unknown>,
): Record<string, unknown> | undefined {
  const given = (f: string) => values[f] !== undefined;
  for (const [name, s] of Object.entries(specs))
    for (const check of Object.values(FLAG_CONSTRAINTS)) if (!check(name, s, given, values[name])) return undefined;
  const out = { ...values };
  for (const [name, s] of Object.entries(specs)) {
    if (out[name] === undefined && s.default !== undefined) out[name] = s.default;
    if (s.type === 'boolean' && out[name] === undefined) out[name] = false;
  }
  return out;
}

/** The node:util parseArgs options of a FlagSpecs. */
export function parseArgsOptions(specs: FlagSpecs): NonNullable<ParseArgsConfig['options']> {
  const options: NonNullable<ParseArgsConfig['options']> = {};
  for (const [name, s] of Object.entries(specs)) {
    options[name] = { type: s.type, ...(s.char ? { short: s.char } : {}), ...(s.multiple ? { multiple: true } : {}) };
  }
  return options;
}

/**
 * A single-value flag given twice (`--dropout 0.1 --dropout 0.2`, or
 * `-N 5000 --population 6000`) is ambiguous: refused with the code
 * `repeated_flag`, never the last value silently. Booleans may repeat (twice
 * the same meaning), and `multiple` flags repeat by design. Undefined when
 * every single-value flag appears at most once.
 */
function repeatedFlag(argv: string[], specs: FlagSpecs): OracleKitError | undefined {
  let tokens;
  try {
    tokens = parseArgs({
      args: argv,
      options: parseArgsOptions(specs),
      strict: false,
      allowPositionals: true,
      tokens: true,
    }).tokens;
  } catch {
    return undefined; // not parseable here: the parser that runs next reports it
  }
  const seen = new Map<string, string[]>();
  for (const t of tokens) {
    if (t.kind !== 'option') continue;
    const spec = specs[t.name];
    if (!spec || spec.type !== 'string' || spec.multiple) continue;
    const values = [...(seen.get(t.name) ?? []), t.value ?? ''];
    seen.set(t.name, values);
    if (values.length < 2) continue;
    const repeatable = Object.entries(specs)
      .filter(([, x]) => x.multiple)
      .map(([n]) => `--${n}`);
    const valid = `--${t.name} once${repeatable.length ? ` (only ${repeatable.join(' and ')} ${repeatable.length === 1 ? 'repeats' : 'repeat'})` : ''}`;
    const typed = spec.char ? `--${t.name} (-${spec.char})` : `--${t.name}`;
    return cliError(
      'repeated_flag',
      `${typed} is given twice (${values.map((v) => JSON.stringify(v)).join(', then ')}); valid: ${valid}`,
      { field: `--${t.name}`, value: values, valid },
    );
  }
  return undefined;
}

/**
 * Refuses a repeated single-value flag, for the fast path and the oclif
 * command alike: prints the error (as JSON with --json) and returns the usage
 * exit code, or undefined when there is none.
 */
export function refuseRepeatedFlag(argv: string[], specs: FlagSpecs): number | undefined {
  const err = repeatedFlag(argv, { ...specs, ...BASE_FLAGS });
  if (!err) return undefined;
  writeErrorBody(err.toBody(), argv.includes('--json'), err.valid);
  return EXIT_CODES.usage;
}
