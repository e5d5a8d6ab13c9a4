/**
 * The Node.js on PATH, which runs a scaffold's npm install, npm test, npm start and npm run chat — not necessarily
 * the Node running `new` (bin/run.js may have been started by another one). When it is missing or older than
 * src/lib/node-support.ts allows, `new` says so in a warning, before the project's first command fails on it.
 */
import { NODE_HOW, NODE_NEEDED, nodeSupported } from '../../lib/node-support.ts';
import { runProgram } from './run.ts';

/** The warning for the Node on PATH, or undefined when it is one the project runs on. */
export async function pathNodeWarning(
  signal: AbortSignal,
  env: NodeJS.ProcessEnv = process.env,
): Promise<string | undefined> {
  const r = await runProgram('node', ['-p', 'process.versions.node'], { signal, env });
  const version = r.exitCode === 0 ? r.stdout.trim() : undefined;
  if (version && nodeSupported(version)) return undefined;
  return `${version ? `the Node.js on PATH is ${version}` : 'no Node.js on PATH'}; this project's npm test and npm start need ${NODE_NEEDED}: ${NODE_HOW}`;
}
