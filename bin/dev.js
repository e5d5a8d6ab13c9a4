#!/usr/bin/env node
// Development entry: runs the TypeScript sources directly (Node 24 strips types).
import { execute } from '@oclif/core';

const argv = process.argv.slice(2);
const chatIdx = argv.indexOf('--chat');
if (chatIdx !== -1) {
  argv.splice(chatIdx, 1);
  argv.unshift('chat');
}
await execute({ args: argv, development: true, dir: import.meta.url });
