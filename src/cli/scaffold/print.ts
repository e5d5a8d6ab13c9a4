/** How `new` and `update-oracle-api-url` print their result for a person (with --json they print the result itself). */
import { isAbsolute, relative } from 'node:path';
import { shellQuote } from '../../lib/shell.ts';
import { NODE_NEEDED } from '../../lib/node-support.ts';
import type { NewResult } from './new.ts';
import type { UpdateUrlResult } from './update-url.ts';

/** What `new` says on stderr besides the result: warnings and the Matrix bot left out. */
export function newNotes(r: NewResult): string[] {
  const notes = r.warnings.map((w) => `warning: ${w}`);
  if (!r.matrix.provisioned) notes.push(`Matrix: ${r.matrix.reason} — to add it later: ${r.matrix.how}`);
  return notes;
}

/**
 * The `cd` of "Next:": relative to where the command ran (absolute only when no relative path exists, e.g. another
 * drive); none when it is that folder.
 */
export function cdLine(dir: string, cwd: string): string[] {
  const rel = relative(cwd, dir);
  if (rel === '') return [];
  const path = isAbsolute(rel) ? dir : rel;
  return [`  cd ${shellQuote(path)}`];
}

/**
 * The commands this setup needs next, in order: the cd, the Node it runs on, npm install when it did not run, the model key unless the
 * model is on this machine (a local server needs none), the tests, the oracle, and a chat with it.
 */
export function nextLines(r: NewResult, cwd = process.cwd()): string[] {
  return [
    ...cdLine(r.dir, cwd),
    `  node --version    # ${NODE_NEEDED}`,
    ...(r.installed ? [] : ['  npm install']),
    ...(r.llm.local ? [] : [`  # put your key for ${r.llm.baseUrl} in .env: LLM_PROVIDER_API_KEY=…`]),
    '  npm test',
    '  npm start',
    '  npm run chat      # in a second terminal, while it runs',
  ];
}

export function formatNew(r: NewResult, cwd = process.cwd()): string {
  return [
    `Created ${r.project} in ${r.dir}`,
    `  oracle DID   ${r.did} (${r.network}, class ${r.class})`,
    `  #api, #ws    ${r.apiUrl}  (PORT=${r.port} in .env)`,
    `  signed in as ${r.identity.did}`,
    '',
    'Next:',
    ...nextLines(r, cwd),
  ].join('\n');
}

export function formatUrlUpdate(r: UpdateUrlResult): string {
  const lines = [`${r.did}: #api and #ws → ${r.apiUrl} (was ${r.previous.apiUrl ?? 'none'}; version ${r.version})`];
  if (r.checked)
    lines.push(`  ${r.apiUrl}/health answered${typeof r.health?.name === 'string' ? ` (${r.health.name})` : ''}`);
  if (r.config) lines.push(`  updated ${r.config}`);
  if (r.port) lines.push(`  PORT ${r.port.from ?? '(unset)'} → ${r.port.to} in .env`);
  const others = r.updated.filter((f) => f !== 'oracle.config.json' && f !== '.env');
  if (others.length > 0) lines.push(`  updated ${others.join(', ')} (they named the old URL or port)`);
  for (const w of r.warnings) lines.push(`warning: ${w}`);
  return lines.join('\n');
}
