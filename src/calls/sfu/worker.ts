/**
 * The embedded endpoint's own thread (thread.ts starts it): a LiveKitEndpoint
 * on an HTTP server of its own on 127.0.0.1, so that forwarding every call's
 * media (SRTP, DTLS, ICE, data channels) and parsing what participants signal
 * run beside the oracle's event loop, not on it. The oracle's thread relays
 * each `/rtc` connection here and is asked, for every join, whether the room
 * may be joined (its calls are live there); presence and log lines go back to
 * it.
 *
 * The endpoint stamps its rooms, joins and pongs with the system clock: those
 * times are for LiveKit clients, which read them against their own clocks.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { listenLiveKitEndpoint } from './endpoint.ts';
import type { EndpointSettings, ToEndpoint, FromEndpoint } from './thread.ts';

const port = parentPort!;
const settings = workerData as EndpointSettings;
const post = (m: FromEndpoint) => port.postMessage(m);

/** Joins waiting for the oracle's answer: may this room be joined. */
const admissions = new Map<number, (refusal: string | undefined) => void>();
let nextAdmission = 0;

const server = await listenLiveKitEndpoint({
  ...settings,
  host: '127.0.0.1',
  port: 0,
  log: (line) => post({ type: 'log', line }),
  admitRoom: (room, identity) =>
    new Promise((resolve) => {
      const id = ++nextAdmission;
      admissions.set(id, resolve);
      post({ type: 'admit', id, room, identity });
    }),
  onPresence: (room, identity, present) => post({ type: 'presence', room, identity, present }),
});

/** What the oracle asked of the endpoint, answered (an error is answered too: the oracle is waiting). */
async function answer(m: Exclude<ToEndpoint, { op: 'admitted' }>): Promise<unknown> {
  switch (m.op) {
    case 'validate':
      return server.endpoint.validate(m.url, m.authorization);
    case 'closeRoom':
      return server.endpoint.closeRoom(m.name);
    case 'close':
      return server.close();
  }
}

port.on('message', (m: ToEndpoint) => {
  if (m.op === 'admitted') {
    admissions.get(m.id)?.(m.refusal);
    admissions.delete(m.id);
    return;
  }
  answer(m).then(
    (value) => {
      post({ type: 'reply', id: m.id, value: value ?? null });
      if (m.op === 'close') port.close();
    },
    (e: unknown) => post({ type: 'reply', id: m.id, value: null, error: (e as Error).message }),
  );
});

post({ type: 'ready', port: Number(new URL(server.url).port) });
