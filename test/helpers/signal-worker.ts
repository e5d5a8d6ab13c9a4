/**
 * A signalling attacker in a thread of its own (worker_threads): it loads its modules, says it is ready, then runs
 * each job it is sent (several at once, each answered under its id): `times` times over, it joins with a token, sends the messages it is given as fast as it can,
 * and waits until the endpoint closes the connection (or, with `until`, until that many responses of a kind came,
 * then closes it itself); it answers with what came back on each connection and how it ended. The oracle under test
 * runs in the test's thread: the attacker's own work (framing and masking thousands of WebSocket messages, decoding
 * the answers, loading the protocol's modules) then does not hold the oracle's event loop.
 */
import { parentPort } from 'node:worker_threads';
import { RequestResponse } from '@livekit/protocol';
import { signalClient } from './signal-client.ts';

export interface AttackJob {
  url: string;
  token: string;
  messages: Uint8Array[];
  times: number;
  /** Close the connection once this many responses of this kind came (else wait for the endpoint to close it). */
  until?: { kind: string; count: number };
  /** Give up waiting after this long (ms). */
  timeoutMs?: number;
}

export interface AttackResponse {
  kind: string | undefined;
  /** A RequestResponse's reason and message. */
  reason?: number;
  message?: string;
}

export interface AttackResult {
  /** The close code; 0 when the join was refused (status) or the wait timed out. */
  code: number;
  status?: number;
  responses: AttackResponse[];
}

async function run(job: AttackJob): Promise<AttackResult[]> {
  const results: AttackResult[] = [];
  for (let i = 0; i < job.times; i++) {
    let c;
    try {
      c = await signalClient(job.url, job.token);
    } catch (e) {
      results.push({ code: 0, status: (e as { status?: number }).status, responses: [] });
      continue;
    }
    for (const m of job.messages) c.sendRaw(m);
    const enough = () =>
      !!job.until && c.responses.filter((r) => r.message.case === job.until!.kind).length >= job.until.count;
    const end = Date.now() + (job.timeoutMs ?? 10_000);
    let code = 0;
    void c.closed.then((k) => (code = k));
    while (!code && !enough() && Date.now() < end) await new Promise((r) => setTimeout(r, 10));
    if (!code) {
      c.close();
      await Promise.race([c.closed, new Promise((r) => setTimeout(r, 1000))]);
    }
    results.push({
      code,
      responses: c.responses.map((r) => {
        const v = r.message.value;
        return v instanceof RequestResponse
          ? { kind: r.message.case, reason: v.reason, message: v.message }
          : { kind: r.message.case };
      }),
    });
  }
  return results;
}

parentPort!.on('message', ({ id, job }: { id: number; job: AttackJob }) => {
  void run(job).then(
    (r) => parentPort!.postMessage({ id, ok: r }),
    (e: unknown) => parentPort!.postMessage({ id, error: (e as Error).message }),
  );
});
parentPort!.postMessage('ready');
