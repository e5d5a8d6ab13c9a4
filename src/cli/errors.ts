/**
 * The CLI's errors: the one error type (src/lib/errors.ts) as commands use it.
 * Commands import only src/cli (docs/architecture.md), so they take
 * OracleKitError and the exit codes from here.
 */
export { OracleKitError, EXIT_CODES, exitCodeForStatus } from '../lib/errors.ts';
