#!/usr/bin/env node
// The docs' half of the lint's issue-number check (eslint-rules/issue-numbers.js): the prose of docs/*.md and the
// README, outside code spans and fenced blocks, names no issue or pull request. Exit 1 with each place found.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ISSUE_REF } from '../eslint-rules/issue-numbers.js';

const root = resolve(import.meta.dirname, '..');
// a tree without docs/ or a README (the lint's own tests run it in a scratch project) has nothing of them to check
const files = [
  ...(existsSync(join(root, 'docs')) ? readdirSync(join(root, 'docs')) : [])
    .filter((f) => f.endsWith('.md'))
    .map((f) => join('docs', f)),
  'README.md',
].filter((f) => existsSync(join(root, f)));
let found = 0;
for (const f of files) {
  let fenced = false;
  readFileSync(join(root, f), 'utf8')
    .split('\n')
    .forEach((line, i) => {
      if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
      if (fenced) return;
      const prose = line.replace(/`[^`]*`/g, '``');
      const m = ISSUE_REF.exec(prose);
      if (m) {
        found++;
        console.error(`${f}:${i + 1}: names an issue or pull request (${JSON.stringify(m[0].trim())}): ${line.trim()}`);
      }
    });
}
if (found > 0) {
  console.error(
    `${found} issue or pull-request reference(s) in the docs: say what is true now; history belongs to git`,
  );
  process.exit(1);
}
