/**
 * `oraclekit sample verify`: flags and the run function. Exit 0 verified,
 * 10 a mismatch (the first one), 11 recomputes but the randomness cannot be
 * trusted (every reason).
 */
import { Flags } from '@oclif/core';
import { EXIT_CODES } from '../../lib/errors.ts';
import { parseCommitment, parseProof } from '../../lib/selection/records.ts';
import { verifySelection } from '../../lib/selection/verify.ts';
import { parseSeedHex } from '../../lib/selection/workflow.ts';
import type { Io } from '../io.ts';
import { paint } from '../output.ts';
import { progressLine, progressText } from '../progress.ts';
import { parsePublishedAt, readJsonFile } from './files.ts';

export const VERIFY_FLAGS = {
  frame: Flags.string({ char: 'f', description: 'The household frame CSV.', required: true }),
  commitment: Flags.string({ char: 'c', description: 'The published commitment JSON.', required: true }),
  proof: Flags.string({ char: 'p', description: 'The proof JSON written by `sample select draw`.', required: true }),
  selection: Flags.string({ char: 's', description: 'Also check every row of this selection.csv.' }),
  'published-at': Flags.string({
    description:
      'When the commitment was published: the time you (or a public record you trust — registry, e-mail, repository) first had it, ISO 8601 with a time zone. Must be before the committed round; without it the selection is untrusted (exit 11).',
  }),
  'seed-hex': Flags.string({
    description:
      'If you performed the selection yourself (`draw --seed-hex`): your randomness. The proof must use exactly it.',
  }),
};

export interface VerifyFlags {
  frame: string;
  commitment: string;
  proof: string;
  selection?: string;
  'published-at'?: string;
  'seed-hex'?: string;
  json: boolean;
}

/** Returns the exit code: 0, 10 (mismatch) or 11 (untrusted). */
export async function runVerify(flags: VerifyFlags, io: Io): Promise<number> {
  const commitment = parseCommitment(
    readJsonFile(flags.commitment, 'commitment', 'the commitment JSON of `sample select commit`'),
    flags.commitment,
  );
  const proof = parseProof(readJsonFile(flags.proof, 'proof', 'the proof JSON of `sample select draw`'), flags.proof);
  const publishedAt = parsePublishedAt(flags['published-at']);
  const seedHex = flags['seed-hex'] !== undefined ? parseSeedHex(flags['seed-hex']) : undefined;
  const progress = progressLine(!flags.json && Boolean(process.stderr.isTTY));
  const r = await verifySelection({
    commitment,
    proof,
    framePath: flags.frame,
    ...(flags.selection !== undefined ? { selectionPath: flags.selection } : {}),
    ...(publishedAt ? { publishedAt } : {}),
    ...(seedHex !== undefined ? { seedHex } : {}),
    onProgress: (p) => progress.update(progressText(p)),
  });
  progress.done();
  if (flags.json) io.outJson(r);
  else if (r.verdict === 'verified') {
    io.out(`${paint.green('OK')} ${r.summary}`);
    for (const n of r.notes) io.out(paint.yellow(`note: ${n}`));
  } else {
    const lines: string[] = [];
    if (r.mismatch) lines.push(`${paint.red('MISMATCH')} [${r.mismatch.check}] ${r.mismatch.message}`);
    for (const u of r.untrusted) lines.push(`${paint.red('UNTRUSTED')} [${u.check}] ${u.message}`);
    if (!r.mismatch)
      lines.push(
        `The selection recomputes exactly (${r.passed.filter((c) => c !== 'randomness').join(', ')}), but its randomness cannot be trusted: exit ${EXIT_CODES.untrusted}.`,
      );
    process.stderr.write(lines.join('\n') + '\n');
  }
  return r.verdict === 'verified' ? 0 : r.verdict === 'mismatch' ? EXIT_CODES.verificationFailed : EXIT_CODES.untrusted;
}
