/**
 * Worker thread of verifyBeaconRoundInWorker (drand.ts): the BLS check of a
 * round (pairing arithmetic, ~0.1–0.2 s of CPU with the import of the
 * verifier) off the calling thread, so `sample select draw` and `sample
 * verify` read the frame meanwhile. Posts {ok: true} or the error's fields.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { isOracleKitError } from '../errors.ts';
import { verifyBeaconRound, type BeaconRound, type ChainInfo } from './drand.ts';

const job = workerData as { chain: ChainInfo; beacon: BeaconRound; round: number; source: string };
try {
  await verifyBeaconRound(job.chain, job.beacon, job.round, job.source);
  parentPort!.postMessage({ ok: true });
} catch (e) {
  if (isOracleKitError(e))
    parentPort!.postMessage({
      ok: false,
      error: { code: e.code, field: e.field, value: e.value, valid: e.valid, message: e.message },
    });
  else parentPort!.postMessage({ ok: false, crash: (e as Error)?.stack ?? String(e) });
}
