/**
 * `oraclekit sample check <package.json>`: re-derives a verifier's package from what it carries and the files it
 * names. Exit 0 when every statement holds; 10 (verification failed) naming the first that does not, with the
 * package's value and the recomputed one.
 */
import { EXIT_CODES } from '../../lib/errors.ts';
import { checkVerifierPackage } from './package-check.ts';
import type { Io } from '../io.ts';
import { paint } from '../output.ts';

export async function runCheck(path: string, flags: { json: boolean }, io: Io): Promise<number> {
  const r = await checkVerifierPackage(path);
  if (flags.json) io.outJson(r);
  else if (r.ok)
    io.out(
      `${paint.green('OK')} every statement of ${path} re-derives from what it carries and the files it names (${r.checked} input files and statements compared)`,
    );
  else {
    const d = r.differs!;
    process.stderr.write(
      `${paint.red('DIFFERS')} ${d.project ? `${d.project} ` : ''}[${d.statement}] ${d.message}\nExit ${EXIT_CODES.verificationFailed}: the package does not re-derive.\n`,
    );
  }
  return r.ok ? 0 : EXIT_CODES.verificationFailed;
}
