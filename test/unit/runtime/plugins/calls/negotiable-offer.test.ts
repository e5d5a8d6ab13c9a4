/**
 * The embedded endpoint hands werift only what it can negotiate of a participant's offer (its codecs, the candidates
 * it can pair with), and werift answers that exactly as it answers the whole offer. The offers are LiveKit's own:
 * @livekit/rtc-node's and Chromium's (livekit-client) publisher offers with a microphone, as the endpoint received
 * them (test/fixtures/livekit-offers).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { RTCPeerConnection } from 'werift';
import { CODECS, candidateUsable, negotiableOffer } from '../../../../../src/calls/sfu/peer.ts';

const offer = (name: string) =>
  readFileSync(new URL(`../../../../fixtures/livekit-offers/${name}.sdp`, import.meta.url), 'utf8');

/**
 * werift's answer as the endpoint's connections make it (its codecs, UDP over IPv4), without what differs between two
 * answers of the same offer (keys, ports, random names).
 */
async function answer(sdp: string): Promise<string> {
  const pc = new RTCPeerConnection({ codecs: CODECS, iceUseIpv6: false, iceInterfaceAddresses: { udp4: '127.0.0.1' } });
  try {
    await pc.setRemoteDescription({ type: 'offer', sdp });
    await pc.setLocalDescription(await pc.createAnswer());
    return pc
      .localDescription!.sdp.split(/\r\n/)
      .filter((l) => !/^(o=|c=|a=ice-ufrag|a=ice-pwd|a=fingerprint|a=candidate|a=msid|a=rtcp:)/.test(l))
      .map((l) => l.replace(/^(m=\w+) \d+/, '$1').replace(/^a=ssrc:\d+ cname:.*/, 'a=ssrc cname'))
      .join('\n');
  } finally {
    await pc.close();
  }
}

const payloads = (sdp: string, kind: string) =>
  [...sdp.matchAll(new RegExp(`^m=${kind} \\d+ \\S+ (.*)$`, 'gm'))].map((m) => m[1]);

describe("the endpoint's view of an offer", () => {
  for (const name of ['rtc-node-microphone', 'chromium-microphone']) {
    it(`${name}: werift answers the trimmed offer exactly as the whole one`, async () => {
      const whole = offer(name);
      const trimmed = negotiableOffer(whole);
      expect(await answer(trimmed)).toBe(await answer(whole));
    });
  }

  it("keeps only Opus and VP8 of rtc-node's codecs, and the UDP IPv4 candidates, in under half the bytes", () => {
    const whole = offer('rtc-node-microphone');
    const trimmed = negotiableOffer(whole);
    expect(trimmed.length).toBeLessThan(whole.length / 2);
    // rtc-node offers Opus 111 with RED, G722, PCMU, PCMA, CN, DTMF; VP8 96 among 23 video payload types
    expect(payloads(whole, 'audio')[0]!.split(' ').length).toBe(8);
    expect(payloads(whole, 'video')[0]!.split(' ').length).toBe(23);
    expect(new Set(payloads(trimmed, 'audio'))).toEqual(new Set(['111']));
    expect(new Set(payloads(trimmed, 'video'))).toEqual(new Set(['96']));
    expect(trimmed).not.toMatch(/^a=(rtpmap|fmtp|rtcp-fb):(?!111 |96 )/m);
    const candidates = (sdp: string) => sdp.match(/^a=candidate:.*$/gm) ?? [];
    expect(candidates(whole).some((c) => / tcp /.test(c) || /fd00::/.test(c))).toBe(true);
    expect(candidates(trimmed).length).toBeGreaterThan(0);
    expect(candidates(trimmed)).toEqual(candidates(whole).filter((c) => / udp [\d]+ 192\.0\.2\.2 /.test(c)));
    // everything else of the offer is left as it was
    const rest = (sdp: string) =>
      sdp.split('\r\n').filter((l) => !/^(m=|a=candidate|a=rtpmap|a=fmtp|a=rtcp-fb)/.test(l));
    expect(rest(trimmed)).toEqual(rest(whole));
  });

  it('keeps a section with none of the endpoint codecs whole, for werift to reject as it would', () => {
    const sdp =
      'v=0\r\no=- 1 2 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\n' +
      'm=video 9 UDP/TLS/RTP/SAVPF 98 99\r\na=mid:0\r\na=rtpmap:98 VP9/90000\r\na=rtpmap:99 rtx/90000\r\n' +
      'a=fmtp:99 apt=98\r\n';
    expect(negotiableOffer(sdp)).toBe(sdp);
  });

  it('usable candidates are UDP over IPv4, or a host name it may resolve', () => {
    expect(candidateUsable('candidate:1 1 udp 2122194687 192.0.2.2 56087 typ host generation 0')).toBe(true);
    expect(candidateUsable('a=candidate:1 1 UDP 2122194687 192.0.2.2 56087 typ host')).toBe(true);
    expect(candidateUsable('candidate:1 1 udp 2122265343 fd00::2 49448 typ host generation 0')).toBe(false);
    expect(candidateUsable('candidate:1 1 tcp 1518214911 192.0.2.2 39329 typ host tcptype passive')).toBe(false);
    expect(candidateUsable('candidate:1 1 udp 2122194687 3b2c5f0e.local 56087 typ host')).toBe(true);
  });
});
