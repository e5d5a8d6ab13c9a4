/**
 * Base of every oraclekit command: `--json` on commands that print data,
 * errors printed once with their field, value and what is valid, and an exit
 * code per error class (src/lib/errors.ts EXIT_CODES; docs/cli.md).
 */
import { Command, Flags, Errors } from '@oclif/core';
import { EXIT_CODES, exitCodeForStatus, isOracleKitError, type ErrorBody } from '../lib/errors.ts';
import { paint } from './output.ts';

export abstract class BaseCommand extends Command {
  static override baseFlags = {
    json: Flags.boolean({ description: 'Print machine-readable JSON (errors as JSON on stderr).', default: false }),
  };

  protected get jsonMode(): boolean {
    return this.argv.includes('--json');
  }

  /** Writes a line to stdout (oclif's log respects our JSON mode). */
  protected out(text: string): void {
    process.stdout.write(text.endsWith('\n') ? text : text + '\n');
  }

  protected outJson(value: unknown): void {
    process.stdout.write(JSON.stringify(value, null, 2) + '\n');
  }

  protected override async catch(err: Error & { exitCode?: number; oclif?: { exit?: number } }): Promise<unknown> {
    if (isOracleKitError(err)) {
      this.printError(err.toBody(), err.valid);
      process.exitCode = exitCodeForStatus(err.status);
      return this.exit(process.exitCode);
    }
    if (err instanceof Errors.ExitError) throw err;
    // oclif parse errors (unknown flag, missing required arg): usage class
    const isParse = err.name?.includes('Parse') || err.constructor?.name?.includes('Parse') || (err as { parse?: unknown }).parse !== undefined;
    if (isParse || err.oclif?.exit === 2) {
      this.printError({ statusCode: 400, code: 'usage', message: err.message.split('\nSee more help')[0] ?? err.message });
      return this.exit(EXIT_CODES.usage);
    }
    this.printError({ statusCode: 500, code: 'unexpected', message: err.message });
    if (process.env.DEBUG) process.stderr.write((err.stack ?? '') + '\n');
    return this.exit(EXIT_CODES.unexpected);
  }

  protected printError(body: ErrorBody, valid?: string): void {
    if (this.jsonMode) {
      process.stderr.write(JSON.stringify(body) + '\n');
      return;
    }
    let text = `${paint.red('Error')} [${body.code}] ${body.message}`;
    if (valid && !body.message.includes(valid)) text += `\n  valid: ${valid}`;
    process.stderr.write(text + '\n');
  }
}
