/**
 * The runtime for bench/chat.ts, in its own process so the TUI being measured
 * does not share an event loop with the server: a real runtime on loopback
 * with the scripted model server. Prints {url, oracleDid} as one JSON line.
 */
import { startHarness } from '../test/helpers/runtime-harness.ts';
import { say } from '../test/helpers/scripted-model-server.ts';

const h = await startHarness();
h.model.fallback = say(`${process.argv[2] ?? 'Zebra'} crossing: the first token, then the rest of a short answer.`, 8);
process.stdout.write(JSON.stringify({ url: h.url, oracleDid: h.oracleDid }) + '\n');
process.on('SIGTERM', () => void h.close().then(() => process.exit(0)));
