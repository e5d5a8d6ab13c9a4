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

/** What commands use to declare flags and arguments (commands import only src/cli). */
export { Args, toOclifFlags } from './oclif-flags.ts';
export { REGISTRY_FLAGS } from './flag-spec.ts';
export { EXIT_CODES } from '../lib/errors.ts';

export abstract class BaseCommand extends Command implements Io {
  static override baseFlags = toOclifFlags({ json: JSON_FLAG });

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
    const isParse = err.name?.includes('Parse') || err.constructor?.name?.includes('Parse') || (err as { parse?: unknown }).parse !== undefined;
    if (isParse || err.oclif?.exit === 2) {
      writeErrorBody(cliError('usage', err.message.split('\nSee more help')[0] ?? err.message).toBody(), this.jsonMode);
      return this.exit(EXIT_CODES.usage);
    }
    return this.exit(printCliError(err, this.jsonMode));
  }
}
