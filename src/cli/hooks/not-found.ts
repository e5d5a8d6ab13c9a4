/**
 * oclif's `command_not_found` hook: a mistyped command is a usage error
 * (exit 2) printed the way every CLI error is, `Error [unknown_command] …`,
 * with the nearest command or topic written with spaces ("did you mean
 * `sample calc`?", or `--chat` for `--chta`), or the JSON error body with
 * --json. Runs only when no
 * command matched, so it costs nothing on any command's start.
 */
import type { Hook } from '@oclif/core';
import { EXIT_CODES } from '../../lib/errors.ts';
import { suggestCommand } from '../did-you-mean.ts';
import { cliError } from '../errors.ts';
import { writeErrorBody } from '../errors-print.ts';

const hook: Hook.CommandNotFound = async function (opts) {
  const c = opts.config;
  const visible = c.commands.filter((cmd) => !cmd.hidden).map((cmd) => cmd.id);
  const topics = c.topics.filter((t) => !t.hidden).map((t) => t.name);
  const spaced = (id: string) => id.replaceAll(':', ' ');
  const typed = spaced(opts.id);
  // a mistyped root flag arrives here too (`oraclekit --chta`)
  const rootFlags = opts.id.startsWith('-') ? ['--chat', '--help', '--version'] : [];
  const near = suggestCommand(opts.id, [...visible, ...topics, ...rootFlags]);
  const message = near
    ? `"${typed}" is not an ${c.bin} command; did you mean "${spaced(near)}"? (\`${c.bin} ${spaced(near)} --help\`)`
    : `"${typed}" is not an ${c.bin} command; \`${c.bin} --help\` lists the commands`;
  const err = cliError('unknown_command', message, {
    field: 'command',
    value: typed,
    ...(near ? { valid: spaced(near) } : {}),
  });
  writeErrorBody(err.toBody(), (opts.argv ?? []).includes('--json'));
  process.exitCode = EXIT_CODES.usage;
};

export default hook;
