/** Builds oclif flags from a neutral FlagSpecs (see flag-spec.ts). */
import { Flags } from '@oclif/core';
import type { FlagSpecs } from './flag-spec.ts';

// oclif's flag builders have precise generic types; the specs are checked by ParsedFlags instead.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function toOclifFlags(specs: FlagSpecs): Record<string, any> {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const out: Record<string, any> = {};
  for (const [name, s] of Object.entries(specs)) {
    const common = {
      description: s.description,
      ...(s.char ? { char: s.char as 'a' } : {}),
      ...(s.helpGroup ? { helpGroup: s.helpGroup } : {}),
      ...(s.required ? { required: true } : {}),
      ...(s.exactlyOne ? { exactlyOne: [...s.exactlyOne] } : {}),
      ...(s.exclusive ? { exclusive: [...s.exclusive] } : {}),
    };
    if (s.type === 'boolean') out[name] = Flags.boolean({ ...common, ...(s.default !== undefined ? { default: s.default as boolean } : {}) });
    else if (s.multiple) out[name] = Flags.string({ ...common, multiple: true, ...(s.options ? { options: [...s.options] } : {}) });
    else out[name] = Flags.string({ ...common, ...(s.options ? { options: [...s.options] } : {}), ...(s.default !== undefined ? { default: s.default as string } : {}) });
  }
  return out;
}
