/**
 * The embedded endpoint's data path: LiveKit data packets (text streams such as the agent's `lk.transcription`,
 * chat, RPC, user packets) between the participants of a room, as LiveKit's server relays them. A participant's
 * packets arrive on the data channels it opened on its publisher connection (`_reliable`, `_lossy`) and go out on
 * the channel of the same name of every other participant (or of those the packet names), which LiveKit's clients
 * read as they read their own. The sender's identity is asserted by the endpoint; only an agent may send a text
 * stream on behalf of another participant of the room (a user's transcript), which is then marked generated.
 *
 * Bounded per participant (DataLimits): packets and bytes per second, and what may wait unsent for a slow receiver;
 * past them a packet is dropped (said once per participant), never queued without end.
 */
import { DataPacket, DataPacket_Kind, ParticipantInfo_Kind } from '@livekit/protocol';
import type { RTCDataChannel } from 'werift';

/** The data channels a LiveKit client opens, and the kind of packet each carries. */
const CHANNELS: Record<string, DataPacket_Kind> = {
  _reliable: DataPacket_Kind.RELIABLE,
  _lossy: DataPacket_Kind.LOSSY,
};

/** The packets relayed (LiveKit's server relays these; speaker updates and metrics are its own, never a client's). */
const RELAYED = new Set([
  'user',
  'chatMessage',
  'transcription',
  'rpcRequest',
  'rpcAck',
  'rpcResponse',
  'streamHeader',
  'streamChunk',
  'streamTrailer',
  'encryptedPacket',
]);

export interface DataLimits {
  /** Data packets a participant may send per second, on average (a burst of 5 seconds' worth). */
  dataPacketsPerSecond: number;
  /** Bytes a participant may send per second, on average (a burst of 5 seconds' worth). */
  dataBytesPerSecond: number;
  /** Bytes waiting unsent on a receiver's channel past which a packet to it is dropped. */
  dataMaxBufferedBytes: number;
}

export const DEFAULT_DATA_LIMITS: DataLimits = {
  dataPacketsPerSecond: 200,
  dataBytesPerSecond: 256 * 1024,
  dataMaxBufferedBytes: 1024 * 1024,
};

/** One participant as the data path sees it. */
export interface DataPeer {
  readonly sid: string;
  readonly identity: string;
  readonly kind: ParticipantInfo_Kind;
  /** Its publisher connection's data channels, by label. */
  readonly channels: Map<string, RTCDataChannel>;
  readonly closed: boolean;
}

/** A token bucket of `rate` per second with a burst of 5 seconds' worth. */
class Bucket {
  private readonly rate: number;
  private tokens: number;
  private last = performance.now();
  constructor(rate: number) {
    this.rate = rate;
    this.tokens = rate * 5;
  }
  take(n: number): boolean {
    const now = performance.now();
    this.tokens = Math.min(this.rate * 5, this.tokens + ((now - this.last) / 1000) * this.rate);
    this.last = now;
    if (this.tokens < n) return false;
    this.tokens -= n;
    return true;
  }
}

export class DataRelay {
  private readonly packets: Bucket;
  private readonly bytes: Bucket;
  private dropped = 0;
  private readonly from: DataPeer;
  private readonly others: () => Iterable<DataPeer>;
  private readonly limits: DataLimits;
  private readonly log: (line: string) => void;

  constructor(from: DataPeer, others: () => Iterable<DataPeer>, limits: DataLimits, log: (line: string) => void) {
    this.from = from;
    this.others = others;
    this.limits = limits;
    this.log = log;
    this.packets = new Bucket(limits.dataPacketsPerSecond);
    this.bytes = new Bucket(limits.dataBytesPerSecond);
  }

  /** A data channel the participant opened: kept by its label, and what arrives on it relayed. */
  adopt(dc: RTCDataChannel): void {
    const kind = CHANNELS[dc.label];
    if (kind === undefined) return; // LiveKit's data-track channel and others: not served
    this.from.channels.set(dc.label, dc);
    dc.onMessage.subscribe((m) => {
      if (typeof m !== 'string') this.relay(m, kind, dc.label);
    });
  }

  private drop(why: string): void {
    if (this.dropped++ === 0) this.log(`[calls] ${this.from.identity}: data packets dropped: ${why}`);
  }

  private relay(bytes: Buffer, kind: DataPacket_Kind, label: string): void {
    if (this.from.closed) return;
    if (!this.packets.take(1) || !this.bytes.take(bytes.length))
      return this.drop(
        `past ${this.limits.dataPacketsPerSecond} packets or ${this.limits.dataBytesPerSecond} bytes per second`,
      );
    let dp: DataPacket;
    try {
      dp = DataPacket.fromBinary(new Uint8Array(bytes));
    } catch {
      return this.drop('an undecodable packet');
    }
    if (!dp.value.case || !RELAYED.has(dp.value.case)) return;
    const others = [...this.others()].filter((p) => p !== this.from && !p.closed);
    this.assertSender(dp, others);
    dp.kind = kind; // the channel it came on says what it is
    const to = dp.destinationIdentities.length > 0 ? new Set(dp.destinationIdentities) : undefined;
    const out = Buffer.from(dp.toBinary());
    for (const p of others) {
      if (to && !to.has(p.identity)) continue;
      const dc = p.channels.get(label);
      if (!dc || dc.readyState !== 'open') continue;
      if (dc.bufferedAmount > this.limits.dataMaxBufferedBytes) {
        this.drop(`${p.identity} reads too slowly`);
        continue;
      }
      dc.send(out);
    }
  }

  /**
   * The packet says who sent it as the endpoint knows them. An agent's text stream that names another participant of
   * the room (a transcript of what that participant said) keeps that name and is marked generated, as LiveKit's server
   * does.
   */
  private assertSender(dp: DataPacket, others: DataPeer[]): void {
    const v = dp.value;
    const text =
      v.case === 'streamHeader' && v.value.contentHeader.case === 'textHeader'
        ? v.value.contentHeader.value
        : undefined;
    const onBehalf =
      text !== undefined &&
      this.from.kind === ParticipantInfo_Kind.AGENT &&
      dp.participantIdentity !== '' &&
      dp.participantIdentity !== this.from.identity &&
      others.some((p) => p.identity === dp.participantIdentity);
    if (onBehalf) text.generated = true;
    else dp.participantIdentity = this.from.identity;
    dp.participantSid = this.from.sid;
    if (v.case === 'user') {
      v.value.participantIdentity = this.from.identity;
      v.value.participantSid = this.from.sid;
    }
  }
}
