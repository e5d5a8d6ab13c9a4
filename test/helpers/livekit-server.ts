/**
 * The oracle's calls against a separate LiveKit-protocol server (LIVEKIT_URL): the embedded endpoint's own code
 * listening on a port of its own, so a test sees every RTP packet it forwards (onRtp). The speech services and the
 * model are the harness's scripted ones.
 */
import type { RtpPacket } from 'werift';
import { listenLiveKitEndpoint } from '../../src/calls/sfu/endpoint.ts';
import type { PublishedTrack } from '../../src/calls/sfu/peer.ts';
import { startHarness, type Harness } from './runtime-harness.ts';
import type { SpeechServer } from './speech-server.ts';

export const LIVEKIT_KEY = 'APIstandin';
export const LIVEKIT_SECRET = 'q'.repeat(48);

export async function startOracleOnLiveKitServer(
  speech: SpeechServer,
  onRtp: (from: string, track: PublishedTrack, packet: RtpPacket) => void,
): Promise<{ h: Harness; server: Awaited<ReturnType<typeof listenLiveKitEndpoint>>; close(): Promise<void> }> {
  const server = await listenLiveKitEndpoint({ apiKey: LIVEKIT_KEY, apiSecret: LIVEKIT_SECRET });
  server.endpoint.onRtp = (_room, from, track, packet) => onRtp(from, track, packet);
  const h = await startHarness({
    env: {
      LIVEKIT_URL: server.url.replace(/^ws:/, 'http:'),
      LIVEKIT_API_KEY: LIVEKIT_KEY,
      LIVEKIT_API_SECRET: LIVEKIT_SECRET,
      CALLS_STT_BASE_URL: speech.baseURL,
      CALLS_TTS_BASE_URL: speech.baseURL,
      CALLS_END_OF_TURN_MS: '400',
    },
  });
  return {
    h,
    server,
    close: async () => {
      await h.close();
      await server.close();
    },
  };
}

/** Polls a condition every 20 ms; throws naming what was awaited after `ms`. */
export async function until(what: string, ok: () => boolean, ms = 15_000): Promise<void> {
  const end = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
