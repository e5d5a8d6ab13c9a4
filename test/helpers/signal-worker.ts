/**
 * A signalling attacker in a thread of its own (worker_threads): `times` times
 * over, it joins with a token, sends the messages it is given as fast as it
 * can, and notes the kinds of the responses and the close code. The oracle
 * under test runs in the test's thread: the attacker's own work (framing and
 * masking thousands of WebSocket messages) then does not hold the oracle's
 * event loop.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { signalClient } from './signal-client.ts';

const { url, token, messages, times } = workerData as {
  url: string;
  token: string;
  messages: Uint8Array[];
  times: number;
};
const results: { code: number; responses: (string | undefined)[] }[] = [];
for (let i = 0; i < times; i++) {
  const c = await signalClient(url, token);
  for (const m of messages) c.sendRaw(m);
  const code = await c.closed;
  results.push({ code, responses: c.responses.map((r) => r.message.case) });
}
parentPort!.postMessage(results);
