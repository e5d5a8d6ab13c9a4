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
process.on('message', (m: { type: string }) => {
  if (m.type === 'stop') void server.close().then(() => process.exit(0));
});
