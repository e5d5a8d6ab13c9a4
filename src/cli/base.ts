/**
 * Base of every oraclekit command: `--json` on commands that print data,
 * errors printed once with their field, value and what is valid, and an exit
 * code per error class (src/lib/errors.ts EXIT_CODES; docs/cli.md).
 */
import { Command, Errors } from '@oclif/core';
import { EXIT_CODES, isOracleKitError } from '../lib/errors.ts';
import { cliError } from './errors.ts';
import { printCliError, writeErrorBody } from './errors-print.ts';
import { JSON_FLAG } from './flag-spec.ts';
import { toOclifFlags } from './oclif-flags.ts';
import { stdoutIo, type Io } from './io.ts';
import { suggest } from './did-you-mean.ts';

/** What commands use to declare flags and arguments (commands import only src/cli). */
export { Args, toOclifFlags } from './oclif-flags.ts';
export { REGISTRY_FLAGS } from './flag-spec.ts';
export { EXIT_CODES } from '../lib/errors.ts';

export abstract class BaseCommand extends Command implements Io {
  /** `--json` is ours, declared once here; oclif's own json flag stays off for every command. */
  static override baseFlags = toOclifFlags({ json: JSON_FLAG });
  static override enableJsonFlag = false;

  protected get jsonMode(): boolean {
    return this.argv.includes('--json');
  }

  out(text: string): void {
    stdoutIo.out(text);
  }

  outJson(value: unknown): void {
    stdoutIo.outJson(value);
  }

  protected override async catch(err: Error & { exitCode?: number; oclif?: { exit?: number } }): Promise<unknown> {
    if (isOracleKitError(err)) return this.exit(printCliError(err, this.jsonMode));
    if (err instanceof Errors.ExitError) throw err;
    // oclif's own parse errors (unknown flag, bad option, missing argument): the usage class
    const isParse =
      err.name?.includes('Parse') ||
      err.constructor?.name?.includes('Parse') ||
      (err as { parse?: unknown }).parse !== undefined;
    if (isParse || err.oclif?.exit === 2) {
      const message = err.message.split('\nSee more help')[0] ?? err.message;
      writeErrorBody(unknownFlagHint(err, this.ctor.flags) ?? cliError('usage', message).toBody(), this.jsonMode);
      return this.exit(EXIT_CODES.usage);
    }
    return this.exit(printCliError(err, this.jsonMode));
  }
}

/** An unknown flag with a near one: the usage error says "did you mean --dropout?" (src/cli/did-you-mean.ts). */
function unknownFlagHint(
  err: Error & { flags?: unknown },
  flags: Record<string, { char?: string; hidden?: boolean }> | undefined,
) {
  if (!Array.isArray(err.flags) || err.flags.length === 0 || !flags) return undefined;
  const names = Object.entries(flags)
    .filter(([, f]) => !f.hidden)
    .map(([name]) => `--${name}`);
  const typed = err.flags.map((f) => String(f).split('=')[0]!);
  const hints = typed.map((t) => ({ t, near: t.startsWith('--') ? suggest(t, names) : [] }));
  if (!hints.some((h) => h.near.length > 0)) return undefined;
  const mean = (near: string[]) => `did you mean ${near.join(' or ')}?`;
  const message =
    hints.length === 1
      ? `unknown flag ${hints[0]!.t}; ${mean(hints[0]!.near)}`
      : `unknown flags ${hints.map((h) => (h.near.length ? `${h.t} (${mean(h.near)})` : h.t)).join(', ')}`;
  const near = hints.flatMap((h) => h.near);
  return cliError('usage', message, {
    field: typed[0]!,
    value: typed.length === 1 ? typed[0] : typed,
    valid: near.join(', '),
  }).toBody();
}
