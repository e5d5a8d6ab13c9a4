/**
 * Child process of bench/calls-load.ts --split: the embedded LiveKit-protocol endpoint run on its own (as a LiveKit
 * deployment stands in for it through LIVEKIT_URL), so that its CPU is measured apart from the oracle's. Tells the
 * parent its URL over IPC ('ready'), closes on 'stop'.
 *
 * Usage (by the parent): calls-endpoint.ts <JSON of { apiKey, apiSecret }>
 */
import { listenLiveKitEndpoint } from '../src/calls/sfu/endpoint.ts';

const { apiKey, apiSecret } = JSON.parse(process.argv[2] ?? '{}') as { apiKey: string; apiSecret: string };
const server = await listenLiveKitEndpoint({ apiKey, apiSecret });
process.send!({ type: 'ready', url: server.url });
let stopping = false;
const stop = () => {
  if (stopping) return;
  stopping = true;
  void server.close().then(() => process.exit(0));
};
process.on('message', (m: { type: string }) => {
  if (m.type === 'stop') stop();
});
// the bench that started it is gone (it ended or failed): nothing is left running behind it
process.on('disconnect', stop);
