/**
 * Printing an error for a person (code, message, what is valid) or, with
 * --json, as the API's error body on stderr; returns the exit code of its
 * class. Shared by BaseCommand and the fast path; free of @oclif/core.
 */
import { EXIT_CODES, exitCodeForStatus, isOracleKitError, type ErrorBody } from '../lib/errors.ts';
import { cliError } from './errors.ts';
import { paint } from './output.ts';

export function writeErrorBody(body: ErrorBody, json: boolean, valid?: string): void {
  if (json) {
    process.stderr.write(JSON.stringify(body) + '\n');
    return;
  }
  let text = `${paint.red('Error')} [${body.code}] ${body.message}`;
  // a message that already says what is valid ("…; valid: …") is not followed by a second `valid:` line
  if (valid && !body.message.includes(valid) && !/\bvalid: /.test(body.message)) text += `\n  valid: ${valid}`;
  process.stderr.write(text + '\n');
}

/** Prints an OracleKitError (or any error as "unexpected") and returns the exit code. */
export function printCliError(err: unknown, json: boolean): number {
  if (isOracleKitError(err)) {
    writeErrorBody(err.toBody(), json, err.valid);
    return exitCodeForStatus(err.status);
  }
  const e = err as Error;
  writeErrorBody(cliError('unexpected', e?.message ?? String(err)).toBody(), json);
  if (process.env.DEBUG) process.stderr.write((e?.stack ?? '') + '\n');
  return EXIT_CODES.unexpected;
}
