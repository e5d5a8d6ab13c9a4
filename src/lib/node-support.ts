/**
 * The Node.js versions oraclekit runs on: the one rule that bin/run.js (before anything else loads), `oraclekit new`
 * (for the Node on PATH that runs the scaffold) and the `engines` of every package.json we ship follow.
 *
 * 22 LTS from 22.22.2, or 24.15 and later. Each floor is the highest that a dependency of the CLI declares for its
 * line (`@inquirer/*`: `^22.22.2 || ^24.15.0`; undici wants 22.19, and a scaffold's `npm start` runs src/main.ts
 * directly, which needs Node's type stripping on by default: 22.18). 23 is neither line; 25 and later are accepted.
 *
 * This module is loaded by bin/run.js on whatever Node launched it, possibly a very old one: it imports nothing and
 * uses no syntax newer than ES2020.
 */

/** `engines.node` of the packages and of a scaffold. */
export const NODE_RANGE = '^22.22.2 || >=24.15.0';

/** The same, for a person. */
export const NODE_NEEDED = 'Node.js 22 (22.22.2 or later) or 24 (24.15 or later)';

/** Where a user gets a supported Node (one clause of a sentence). */
export const NODE_HOW = 'install Node.js 24 LTS from https://nodejs.org or with a version manager (nvm install 24)';

/** Whether a version ("22.22.2", "v24.15.0") is one oraclekit runs on. */
export function nodeSupported(version: string): boolean {
  const [major = 0, minor = 0, patch = 0] = version.replace(/^v/, '').split('.').map(Number);
  if (major === 22) return minor > 22 || (minor === 22 && patch >= 2);
  if (major === 24) return minor >= 15;
  return major > 24;
}

/** The one line an unsupported Node gets: the version found, the versions needed and how to get one. */
export function nodeTooOld(found: string, how: string = NODE_HOW, who = 'oraclekit'): string {
  return `${who} needs ${NODE_NEEDED}; this is Node.js ${found.replace(/^v/, '')}: ${how}.`;
}
