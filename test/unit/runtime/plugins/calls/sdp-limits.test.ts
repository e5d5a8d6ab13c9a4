/**
 * The embedded endpoint's bound on an SDP's media sections admits what LiveKit's own SDKs offer and refuses an offer
 * built to make the endpoint parse thousands of sections.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_AUDIO_FRAME_MS, DEFAULT_ENDPOINT_LIMITS } from '../../../../../src/calls/sfu/endpoint.ts';
import { sdpRefusal } from '../../../../../src/calls/sfu/peer.ts';
import { CallsEnvSchema } from '../../../../../src/calls/settings.ts';

const section = (kind: 'audio' | 'video' | 'application', mid: number, direction: string) =>
  kind === 'application'
    ? `m=application 9 UDP/DTLS/SCTP webrtc-datachannel\r\na=mid:${mid}\r\n`
    : `m=${kind} 9 UDP/TLS/RTP/SAVPF 96\r\na=mid:${mid}\r\na=${direction}\r\n`;

/**
 * The publisher offer of @livekit/rtc-node (libwebrtc) with a microphone and a camera: three receive-only audio and
 * three receive-only video sections, the data channel, then the two tracks.
 */
function rtcNodeOffer(): string {
  const kinds = ['audio', 'audio', 'audio', 'video', 'video', 'video'] as const;
  let sdp = 'v=0\r\no=- 1 2 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\n';
  kinds.forEach((k, i) => (sdp += section(k, i, 'recvonly')));
  sdp += section('application', 6, '');
  sdp += section('audio', 7, 'sendonly') + section('video', 8, 'sendonly');
  return sdp;
}

describe("the embedded endpoint's SDP bounds", () => {
  it('admit the offer of a native LiveKit participant with a microphone and a camera (9 media sections)', () => {
    const offer = rtcNodeOffer();
    expect(offer.match(/^m=/gm)).toHaveLength(9);
    expect(sdpRefusal(offer, DEFAULT_ENDPOINT_LIMITS)).toBeUndefined();
    const settings = CallsEnvSchema.parse({});
    const limits = { ...DEFAULT_ENDPOINT_LIMITS, sdpMaxMediaSections: settings.CALLS_SDP_MAX_MEDIA_SECTIONS };
    expect(sdpRefusal(offer, limits)).toBeUndefined();
  });

  it('refuse an offer of 100 media sections under the size bound, naming the count and the bound', () => {
    let sdp = 'v=0\r\n';
    for (let i = 0; i < 100; i++) sdp += section('audio', i, 'sendonly');
    expect(sdp.length).toBeLessThan(DEFAULT_ENDPOINT_LIMITS.sdpMaxBytes);
    expect(sdpRefusal(sdp, DEFAULT_ENDPOINT_LIMITS)).toBe(
      `an SDP of 100 media sections (at most ${DEFAULT_ENDPOINT_LIMITS.sdpMaxMediaSections})`,
    );
  });

  it('ask 10 ms Opus frames of the users and 20 ms of the agent unless told, and refuse any other length by name', () => {
    expect(CallsEnvSchema.parse({})).toMatchObject({ CALLS_AUDIO_FRAME_MS: 10, CALLS_AGENT_AUDIO_FRAME_MS: 20 });
    // an endpoint served on its own, without the plugin's settings, asks the same
    const e = CallsEnvSchema.parse({});
    expect({ user: e.CALLS_AUDIO_FRAME_MS, agent: e.CALLS_AGENT_AUDIO_FRAME_MS }).toEqual(DEFAULT_AUDIO_FRAME_MS);
    expect(CallsEnvSchema.parse({ CALLS_AUDIO_FRAME_MS: '20', CALLS_AGENT_AUDIO_FRAME_MS: '10' })).toMatchObject({
      CALLS_AUDIO_FRAME_MS: 20,
      CALLS_AGENT_AUDIO_FRAME_MS: 10,
    });
    for (const name of ['CALLS_AUDIO_FRAME_MS', 'CALLS_AGENT_AUDIO_FRAME_MS']) {
      const bad = CallsEnvSchema.safeParse({ [name]: '15' });
      expect(bad.success).toBe(false);
      expect(bad.error!.issues[0]).toMatchObject({ path: [name], message: '10 or 20' });
    }
  });
});
