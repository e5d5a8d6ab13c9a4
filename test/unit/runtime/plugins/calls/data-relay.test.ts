/**
 * The embedded endpoint's data path (src/calls/sfu/data.ts): who a relayed packet says sent it, who gets it, and the
 * per-participant rate; and what a cut answer keeps of its text (src/calls/voice.ts, heardText).
 */
import { describe, expect, it } from 'vitest';
import {
  DataPacket,
  DataStream_Header,
  DataStream_TextHeader,
  ParticipantInfo_Kind,
  UserPacket,
} from '@livekit/protocol';
import type { RTCDataChannel } from 'werift';
import { DataRelay, DEFAULT_DATA_LIMITS, type DataPeer } from '../../../../../src/calls/sfu/data.ts';
import { heardText } from '../../../../../src/calls/voice.ts';

/** A participant whose channels record what they were sent; `send` plays its own channel's incoming message. */
function peer(identity: string, kind = ParticipantInfo_Kind.STANDARD) {
  const got: DataPacket[] = [];
  const listeners: ((m: Buffer) => void)[] = [];
  const dc = {
    label: '_reliable',
    readyState: 'open',
    bufferedAmount: 0,
    onMessage: { subscribe: (f: (m: Buffer) => void) => void listeners.push(f) },
    send: (b: Buffer) => void got.push(DataPacket.fromBinary(new Uint8Array(b))),
  } as unknown as RTCDataChannel;
  const p: DataPeer = { sid: `PA_${identity}`, identity, kind, channels: new Map(), closed: false };
  return { p, dc, got, send: (d: DataPacket) => listeners.forEach((f) => f(Buffer.from(d.toBinary()))) };
}

function room(limits = DEFAULT_DATA_LIMITS) {
  const user = peer('user');
  const agent = peer('agent', ParticipantInfo_Kind.AGENT);
  const observer = peer('observer');
  const all = [user, agent, observer];
  const logs: string[] = [];
  for (const x of all)
    new DataRelay(
      x.p,
      () => all.map((y) => y.p),
      limits,
      (l) => logs.push(l),
    ).adopt(x.dc);
  return { user, agent, observer, logs };
}

const textHeader = (from: string) =>
  new DataPacket({
    participantIdentity: from,
    value: {
      case: 'streamHeader',
      value: new DataStream_Header({
        streamId: 's1',
        topic: 'lk.transcription',
        contentHeader: { case: 'textHeader', value: new DataStream_TextHeader({}) },
      }),
    },
  });

describe('the data relay', () => {
  it('relays to the others with the sender the endpoint knows, whatever the packet claims', () => {
    const r = room();
    r.user.send(
      new DataPacket({
        participantIdentity: 'agent',
        value: { case: 'user', value: new UserPacket({ participantIdentity: 'agent', payload: new Uint8Array([1]) }) },
      }),
    );
    expect(r.user.got).toHaveLength(0);
    for (const x of [r.agent, r.observer]) {
      expect(x.got).toHaveLength(1);
      expect(x.got[0]!.participantIdentity).toBe('user');
      expect((x.got[0]!.value.value as UserPacket).participantIdentity).toBe('user');
    }
  });

  it("lets the agent send a text stream on a participant's behalf, marked generated; a user cannot", () => {
    const r = room();
    r.agent.send(textHeader('user'));
    const h = r.observer.got[0]!;
    expect(h.participantIdentity).toBe('user');
    expect((h.value.value as DataStream_Header).contentHeader.value).toMatchObject({ generated: true });
    r.user.send(textHeader('agent'));
    expect(r.observer.got[1]!.participantIdentity).toBe('user');
  });

  it('sends only to the identities a packet names, and drops past the rate, saying so once', () => {
    const r = room({ ...DEFAULT_DATA_LIMITS, dataPacketsPerSecond: 2 });
    r.user.send(
      new DataPacket({ destinationIdentities: ['agent'], value: { case: 'user', value: new UserPacket({}) } }),
    );
    expect([r.agent.got.length, r.observer.got.length]).toEqual([1, 0]);
    for (let i = 0; i < 20; i++) r.user.send(textHeader('user'));
    expect(r.agent.got.length).toBe(10); // a burst of 5 seconds' worth
    expect(r.logs).toEqual(['[calls] user: data packets dropped: past 2 packets or 262144 bytes per second']);
  });
});

describe('heardText', () => {
  it('keeps the sentences played and, of the one cut, its words in the share played', () => {
    expect(heardText({ played: [], chunk: { at: 0, of: 0 } })).toBe('');
    expect(heardText({ played: ['One two.', 'Three four five six.'], chunk: { at: 50, of: 100 } })).toBe(
      'One two. Three four',
    );
    expect(heardText({ played: ['One two.'], chunk: { at: 100, of: 100 } })).toBe('One two.');
    expect(heardText({ played: ['One two.'], chunk: { at: 10, of: 100 } })).toBe('');
  });
});
