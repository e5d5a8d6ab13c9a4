/**
 * The project name: the directory `new` creates and the package's name. On a terminal a missing or unusable name is
 * asked for, and an unusable one ("Bad Name") is offered a usable form ("bad-name"), as create-vite does.
 */
import { cliError } from '../errors.ts';
import { askText, type AskContext } from './ask.ts';

const PROJECT_NAME = /^[a-z0-9][a-z0-9._-]{0,213}$/i;
const VALID = 'letters, digits, ".", "_" and "-", starting with a letter or digit';
const DEFAULT_PROJECT_NAME = 'my-oracle';

/** A usable name made from any text: lower case, runs of anything else as one "-", no leading or trailing "-". */
export function suggestProjectName(text: string): string {
  const s = text
    .trim()
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, '-')
    .replace(/^[^a-z0-9]+/, '')
    .replace(/-+$/, '')
    .slice(0, 214);
  return s === '' ? DEFAULT_PROJECT_NAME : s;
}

function check(v: string): true | string {
  return PROJECT_NAME.test(v) ? true : `${JSON.stringify(v)} is not a valid name: ${VALID}`;
}

/**
 * The name from the argument; else, with --yes, my-oracle; else asked on a terminal; else an error naming the
 * argument. A name that cannot be used is refused without a terminal (the error suggests one) and, on a terminal,
 * asked again with the usable form as the default.
 */
export async function projectName(ctx: AskContext, given: string | undefined): Promise<string> {
  let name = given;
  if (name === undefined) {
    if (ctx.yes) return DEFAULT_PROJECT_NAME;
    if (!ctx.interactive)
      throw cliError(
        'missing_answer',
        'a project name is needed (no terminal to ask on): oraclekit new <project-name>',
        {
          field: 'project-name',
          valid: VALID,
        },
      );
    name = await askText(ctx, 'project-name', undefined, { message: 'Project name', default: DEFAULT_PROJECT_NAME });
  }
  if (check(name) === true) return name;
  const suggestion = suggestProjectName(name);
  if (!ctx.interactive)
    throw cliError('invalid_project_name', `project name ${JSON.stringify(name)} is not valid; try ${suggestion}`, {
      field: 'project-name',
      value: name,
      valid: `${VALID} (e.g. ${suggestion})`,
    });
  return askText({ ...ctx, yes: false }, 'project-name', undefined, {
    message: 'Package name',
    default: suggestion,
    validate: check,
  });
}
