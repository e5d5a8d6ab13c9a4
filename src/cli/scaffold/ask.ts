/**
 * Every question is also a flag. An answer comes from its flag; else, with
 * --yes, the default; else a prompt (@inquirer's input, select or confirm, loaded lazily) on a
 * TTY; else an error naming the flag.
 */
import { cliError, type OracleKitError } from '../errors.ts';

export interface AskContext {
  yes: boolean;
  interactive: boolean;
}

function missing(flag: string, valid?: string): OracleKitError {
  return cliError(
    'missing_answer',
    `--${flag} is needed (no terminal to ask on); pass --${flag}${valid ? ` (${valid})` : ''} or --yes for the defaults`,
    { field: flag, ...(valid ? { valid } : {}) },
  );
}

export async function askText(
  ctx: AskContext,
  flag: string,
  given: string | undefined,
  q: {
    message: string;
    default?: string;
    /** Says what was wrong with an answer (the prompt asks again), or true. */
    validate?: (v: string) => true | string;
    /** What is valid, for the error of a flag (default: what validate said). */
    valid?: string;
  },
): Promise<string> {
  if (given !== undefined) {
    const ok = q.validate?.(given) ?? true;
    if (ok !== true)
      throw cliError('invalid_flag', `--${flag} ${JSON.stringify(given)}: ${ok}`, {
        field: flag,
        value: given,
        valid: q.valid ?? ok,
      });
    return given;
  }
  if (ctx.yes && q.default !== undefined) return q.default;
  if (!ctx.interactive) throw missing(flag);
  const { default: input } = await import('@inquirer/input');
  return input({
    message: q.message,
    ...(q.default !== undefined ? { default: q.default } : {}),
    ...(q.validate ? { validate: q.validate } : {}),
  });
}

export async function askSelect<T extends string>(
  ctx: AskContext,
  flag: string,
  given: T | undefined,
  q: { message: string; default: T; choices: { value: T; name: string }[] },
): Promise<T> {
  if (given !== undefined) return given;
  if (ctx.yes) return q.default;
  if (!ctx.interactive) throw missing(flag, q.choices.map((c) => c.value).join(', '));
  const { default: select } = await import('@inquirer/select');
  return select<T>({ message: q.message, default: q.default, choices: q.choices });
}

export async function askConfirm(
  ctx: AskContext,
  flag: string,
  given: boolean | undefined,
  q: { message: string; default: boolean },
): Promise<boolean> {
  if (given !== undefined) return given;
  if (ctx.yes) return q.default;
  if (!ctx.interactive) throw missing(flag, `--${flag} or --no-${flag}`);
  const { default: confirm } = await import('@inquirer/confirm');
  return confirm({ message: q.message, default: q.default });
}

/** On a terminal, waits for Enter after something the user must act on before it scrolls away (a new mnemonic). */
export async function askEnter(ctx: AskContext, message: string): Promise<void> {
  if (!ctx.interactive) return;
  const { default: input } = await import('@inquirer/input');
  await input({ message });
}
