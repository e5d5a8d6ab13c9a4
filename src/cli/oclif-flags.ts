/**
 * Builds typed oclif flags from the neutral specs (see flag-spec.ts): the one
 * way commands declare flags. The result's type follows the specs, so
 * `this.parse(Command)` types each flag: boolean (or boolean | undefined
 * without a default), number for integers, string[] for repeatable flags,
 * string (| undefined unless required or defaulted) otherwise.
 */
import { Args, Flags, type Interfaces } from '@oclif/core';
import type { CommandFlagSpecs, FlagSpec, IntegerFlagSpec } from './flag-spec.ts';

export { Args };

type Given<F> = F extends { required: true } ? true : F extends { default: string | number | boolean } ? true : false;

type ValueOf<F> = F extends { type: 'boolean' }
  ? F extends { default: boolean }
    ? boolean
    : boolean | undefined
  : F extends { type: 'integer' }
    ? Given<F> extends true
      ? number
      : number | undefined
    : F extends { multiple: true }
      ? F extends { required: true }
        ? string[]
        : string[] | undefined
      : Given<F> extends true
        ? string
        : string | undefined;

type OclifFlag<F> = F extends { type: 'boolean' }
  ? Interfaces.BooleanFlag<ValueOf<F>>
  : Interfaces.OptionFlag<ValueOf<F>>;

type OclifFlags<S> = { [K in keyof S]: OclifFlag<S[K]> };

function one(s: FlagSpec | IntegerFlagSpec): unknown {
  const common = {
    description: s.description,
    ...(s.char ? { char: s.char as 'a' } : {}),
    ...(s.helpGroup ? { helpGroup: s.helpGroup } : {}),
    ...(s.required ? { required: true } : {}),
    ...(s.exclusive ? { exclusive: [...s.exclusive] } : {}),
    ...(s.exactlyOne ? { exactlyOne: [...s.exactlyOne] } : {}),
    ...(s.dependsOn ? { dependsOn: [...s.dependsOn] } : {}),
  };
  if (s.type === 'integer')
    return Flags.integer({
      ...common,
      ...(s.default !== undefined ? { default: s.default } : {}),
      ...(s.min !== undefined ? { min: s.min } : {}),
      ...(s.max !== undefined ? { max: s.max } : {}),
    });
  const extra = s.env ? { env: s.env } : {};
  if (s.type === 'boolean')
    return Flags.boolean({
      ...common,
      ...extra,
      ...(s.allowNo ? { allowNo: true } : {}),
      ...(s.default !== undefined ? { default: s.default as boolean } : {}),
    });
  if (s.multiple)
    return Flags.string({ ...common, ...extra, multiple: true, ...(s.options ? { options: [...s.options] } : {}) });
  return Flags.string({
    ...common,
    ...extra,
    ...(s.options ? { options: [...s.options] } : {}),
    ...(s.default !== undefined ? { default: s.default as string } : {}),
  });
}

export function toOclifFlags<const S extends CommandFlagSpecs>(specs: S): OclifFlags<S> {
  const out: Record<string, unknown> = {};
  for (const [name, s] of Object.entries(specs)) out[name] = one(s);
  return out as OclifFlags<S>;
}
