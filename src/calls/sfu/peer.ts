/**
 * One participant of the embedded endpoint: its signal WebSocket and its two
 * werift peer connections, as LiveKit's dual peer connection protocol (the
 * `/rtc` path) has them — the publisher connection carries what the
 * participant sends (the client offers, we answer), the subscriber connection
 * what it receives (we offer, the client answers). Media is forwarded as RTP
 * packets, payloads untouched. A track announced without end-to-end
 * encryption is refused, so the endpoint never forwards a frame it could
 * decode.
 */
import { randomBytes } from 'node:crypto';
import { setImmediate as nextTask } from 'node:timers/promises';
import {
  MediaStreamTrack,
  type RTCDataChannel,
  RTCPeerConnection,
  RTCRtpCodecParameters,
  type RTCRtpTransceiver,
  type RtpPacket,
} from 'werift';
import type { WebSocket } from 'ws';
import type { SignalRequest } from '@livekit/protocol';
import {
  Encryption_Type,
  ParticipantInfo,
  ParticipantInfo_Kind,
  ParticipantInfo_State,
  ParticipantPermission,
  RequestResponse,
  RequestResponse_Reason,
  SessionDescription,
  SignalResponse,
  SignalTarget,
  TrackInfo,
  TrackSubscribed,
  TrackType,
  type AddTrackRequest,
  type UpdateParticipantMetadata,
} from '@livekit/protocol';

/** The attributes a participant may carry (its token's and those it sets). */
const MAX_ATTRIBUTES = 16;

/**
 * The answer's SDP with the Opus frame length asked for on its audio (`a=ptime`, which Chrome's and rtc-node's encoders
 * follow; werift's answer carries none). A sound waits for its frame to fill before it is sent (and a jitter buffer
 * holds whole packets), so 10 ms frames arrive sooner; they are twice the packets to encrypt, forward and
 * decode (the endpoint asks 10 ms of a user and 20 ms of the agent by default: docs/live-agent.md, "Latency and cost").
 */
function withAudioPtime(sdp: string, ms: number): string {
  return sdp.replace(/^(a=rtpmap:\d+ opus\/48000\/2\r?\n)/gim, `$1a=ptime:${ms}\r\n`);
}

/** Codecs the endpoint negotiates: Opus for audio, VP8 for video (no simulcast, no RED, no RTX). */
export const CODECS = {
  audio: [new RTCRtpCodecParameters({ mimeType: 'audio/opus', clockRate: 48_000, channels: 2 })],
  video: [
    new RTCRtpCodecParameters({
      mimeType: 'video/VP8',
      clockRate: 90_000,
      rtcpFeedback: [{ type: 'nack' }, { type: 'nack', parameter: 'pli' }, { type: 'goog-remb' }],
    }),
  ],
};

/**
 * Whether the endpoint can use an ICE candidate (its `candidate:` text): it gathers UDP over IPv4 only (werift pairs a
 * remote candidate with a local one of the same transport and address family), so a TCP or IPv6 one never pairs. A
 * host name (mDNS) is kept: what it resolves to is not known here.
 */
export function candidateUsable(candidate: string): boolean {
  // candidate:<foundation> <component> <transport> <priority> <address> <port> typ <type> ...
  const [, , transport, , address] = candidate.replace(/^a=/, '').split(' ');
  return transport?.toLowerCase() === 'udp' && !address?.includes(':');
}

/**
 * A participant's offer with only what the endpoint can negotiate: in each audio and video section the payload types
 * of its codecs (CODECS: Opus, VP8) and their `rtpmap`, `fmtp` and `rtcp-fb` lines, and only the candidates it can use.
 * werift answers the same (an answer holds only codecs both sides have), but reads and writes the whole offer again
 * at every step of a negotiation and for every trickled candidate: LiveKit's native SDKs offer ~20 video codecs in
 * each of three video sections, 14–18 KB that took 3–24 ms to apply on the endpoint's thread, where every call's
 * media waits meanwhile. A section left with none of the endpoint's codecs is kept whole (werift rejects it as before).
 */
export function negotiableOffer(sdp: string): string {
  const eol = sdp.includes('\r\n') ? '\r\n' : '\n';
  const [session, ...sections] = sdp.split(/^(?=m=)/m);
  const kept = sections.map((section) => {
    const lines = section.split(/\r?\n/);
    const m = /^m=(audio|video) (\S+) (\S+) (.*)$/.exec(lines[0]!);
    const usable = lines.filter((l) => !l.startsWith('a=candidate:') || candidateUsable(l.slice(2)));
    if (!m) return usable.join(eol);
    const names = new Set(CODECS[m[1] as 'audio' | 'video'].map((c) => c.mimeType.split('/')[1]!.toLowerCase()));
    const keep = new Set<string>();
    for (const l of lines) {
      const r = /^a=rtpmap:(\d+) ([^/]+)\//.exec(l);
      if (r && names.has(r[2]!.toLowerCase())) keep.add(r[1]!);
    }
    if (keep.size === 0) return usable.join(eol);
    const payloadOf = (l: string) => /^a=(?:rtpmap|fmtp|rtcp-fb):(\d+|\*)[ ]/.exec(l)?.[1];
    const formats = m[4]!.split(' ').filter((pt) => keep.has(pt));
    return [
      `m=${m[1]} ${m[2]} ${m[3]} ${formats.join(' ')}`,
      ...usable.slice(1).filter((l) => {
        const pt = payloadOf(l);
        return pt === undefined || pt === '*' || keep.has(pt);
      }),
    ].join(eol);
  });
  return session + kept.join('');
}

/** What one participant may do over its signal connection (docs/live-agent.md, "Limits"). */
export interface SignalLimits {
  /** Signal messages per second, on average; a burst of 5 seconds' worth is allowed. */
  signalPerSecond: number;
  /** The largest SDP (offer or answer) accepted, in bytes. */
  sdpMaxBytes: number;
  /** The most media sections (m-lines) an SDP may carry. */
  sdpMaxMediaSections: number;
}

/** Refused signal messages, past the rate, before the participant is dropped. */
const MAX_REFUSED = 50;

/**
 * The ICE candidates one participant may trickle over its connection's life, counted apart from its signal rate.
 * LiveKit's native SDKs gather on every media section of an offer before it is bundled (UDP and TCP, IPv4 and IPv6:
 * four a section): seen here, 28 for an agent joining alone and up to 160 for each of eight joining at once. A
 * candidate costs its connectivity checks only, and this bounds them.
 */
const MAX_CANDIDATES = 1000;

/** Why an SDP is refused, or undefined: its size and media sections against the limits. */
export function sdpRefusal(sdp: string, l: SignalLimits): string | undefined {
  if (sdp.length > l.sdpMaxBytes) return `an SDP of ${sdp.length} bytes (at most ${l.sdpMaxBytes})`;
  const sections = sdp.match(/^m=/gm)?.length ?? 0; // the size is bounded first: this reads at most sdpMaxBytes
  if (sections > l.sdpMaxMediaSections)
    return `an SDP of ${sections} media sections (at most ${l.sdpMaxMediaSections})`;
  return undefined;
}

interface PeerOptions {
  sid: string;
  identity: string;
  name: string;
  kind: ParticipantInfo_Kind;
  attributes: Record<string, string>;
  metadata: string;
  ws: WebSocket;
  /** The IPv4 address media binds to; 0.0.0.0 for every interface. */
  mediaAddress: string;
  iceServers?: { urls: string; username?: string; credential?: string }[];
  /** The Opus frame length (ms) asked of the participant's audio. */
  audioFrameMs: number;
  limits: SignalLimits;
  /** The token's canUpdateOwnMetadata: whether the participant may set its attributes (the agent's state). */
  canUpdateOwnMetadata?: boolean;
  log: (line: string) => void;
  /** The clock the join time and the pong are stamped with (the plugin context's now), ms since the epoch. */
  now: () => number;
}

/** A published track: its LiveKit info and the subscribers its packets go to. */
export interface PublishedTrack {
  info: TrackInfo;
  owner: Peer;
  /** The participant's own track id (AddTrackRequest.cid), to match the media that arrives. */
  cid: string;
  kind: 'audio' | 'video';
  remote?: MediaStreamTrack;
  /** Local tracks of the subscribers' connections (by subscriber sid), written with every packet. */
  sinks: Map<string, MediaStreamTrack>;
  /** Subscribers that unsubscribed from the track (LiveKit's UpdateSubscription): their sinks get no packets. */
  paused: Set<string>;
}

export const newSid = (prefix: string) => `${prefix}_${randomBytes(6).toString('base64url')}`;

export class Peer {
  readonly o: PeerOptions;
  readonly tracks = new Map<string, PublishedTrack>();
  readonly joinedAt: number;
  private version = 1;
  private readonly publisher: RTCPeerConnection;
  private readonly subscriber: RTCPeerConnection;
  private negotiating = false;
  /**
   * Tracks of others' this participant subscribes to whose owners are not yet told (LiveKit's `trackSubscribed`):
   * added (an m-line no offer carried yet), offered (in the offer out), answered (its answer applied).
   */
  private readonly pendingSubscribed = new Map<PublishedTrack, 'added' | 'offered' | 'answered'>();
  private renegotiate = false;
  private offerId = 0;
  closed = false;
  /** Whether a connection of this participant's has carried media (ICE and DTLS up). */
  mediaConnected = false;
  private tokens: number;
  // the signalling bucket refills on a monotonic clock: a wall clock set back would empty it
  private lastRefill = performance.now();
  private refused = 0;
  /** ICE candidates trickled so far. */
  private candidates = 0;
  /** Requests refused (the first is logged: a participant cannot fill the log). */
  private refusedRequests = 0;
  private queue: Promise<unknown> = Promise.resolve();
  private queued = 0;
  /** The participant broke a limit it cannot continue past: the endpoint drops it, saying why. */
  onRefused: ((why: string) => void) | undefined;
  onClose: (() => void) | undefined;
  /** Called for each RTP packet this participant publishes, before it is forwarded (tests read it). */
  onRtp: ((track: PublishedTrack, packet: RtpPacket) => void) | undefined;
  onTrackReady: ((track: PublishedTrack) => void) | undefined;
  /** The participant unsubscribed from others' tracks (by sid), or subscribed to them again. */
  onSubscription: ((trackSids: string[], subscribe: boolean) => void) | undefined;
  onInfoChanged: (() => void) | undefined;
  /** The data channels the participant opened on its publisher connection, by label (sfu/data.ts relays them). */
  readonly channels = new Map<string, RTCDataChannel>();
  /** A data channel the participant opened. */
  onDataChannel: ((dc: RTCDataChannel) => void) | undefined;

  constructor(o: PeerOptions) {
    this.o = o;
    this.joinedAt = o.now();
    const config = {
      codecs: CODECS,
      iceServers: o.iceServers ?? [],
      iceUseIpv6: false,
      ...(o.mediaAddress !== '0.0.0.0' ? { iceInterfaceAddresses: { udp4: o.mediaAddress } } : {}),
    };
    this.publisher = new RTCPeerConnection(config);
    this.subscriber = new RTCPeerConnection(config);
    this.publisher.onTrack.subscribe((t) => this.incoming(t));
    this.publisher.onDataChannel.subscribe((dc) => this.onDataChannel?.(dc));
    for (const pc of [this.publisher, this.subscriber])
      pc.connectionStateChange.subscribe((state) => {
        if (state !== 'connected') return;
        this.mediaConnected = true;
        this.tellSubscribed();
      });
    this.tokens = this.burst;
  }

  private get burst(): number {
    return this.o.limits.signalPerSecond * 5;
  }

  /**
   * Counts a signal message against the participant's rate (a token bucket: signalPerSecond, a burst of 5 s' worth),
   * or an ICE candidate (`trickle`) against MAX_CANDIDATES: false refuses it; past MAX_REFUSED refusals of either the
   * participant is dropped.
   */
  allowSignal(trickle: boolean, now = performance.now()): boolean {
    if (trickle) {
      if (++this.candidates <= MAX_CANDIDATES) return true;
      if (this.candidates === MAX_CANDIDATES + 1)
        this.o.log(`[calls] ${this.o.identity}: ICE candidates refused past ${MAX_CANDIDATES}`);
      if (this.candidates > MAX_CANDIDATES + MAX_REFUSED)
        this.onRefused?.(`more than ${MAX_CANDIDATES} ICE candidates`);
      return false;
    }
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.lastRefill) / 1000) * this.o.limits.signalPerSecond);
    this.lastRefill = now;
    if (this.tokens >= 1) {
      this.tokens--;
      return true;
    }
    if (++this.refused === 1)
      this.o.log(
        `[calls] ${this.o.identity}: signal messages refused past ${this.o.limits.signalPerSecond} per second`,
      );
    if (this.refused > MAX_REFUSED)
      this.onRefused?.(`more than ${this.o.limits.signalPerSecond} signal messages per second`);
    return false;
  }

  /**
   * Handles the participant's requests one after another, as they came: an offer is answered before the next request
   * is read, and one participant's requests never run beside each other. What may wait is what allowSignal lets in at
   * once: a burst of messages and the candidates that come while an offer is answered.
   *
   * Each request, and each step of a negotiation (applying an offer, making the answer, applying that), starts as a
   * task of its own: werift's steps are synchronous work of up to ~25 ms each, and the packets of every call on this
   * thread that came meanwhile are forwarded between them rather than after all of them (a late packet makes each
   * listener's jitter buffer hold every later one longer, for many seconds).
   */
  enqueue(req: SignalRequest): Promise<boolean> {
    if (this.queued >= this.burst + MAX_CANDIDATES) {
      this.onRefused?.(`more than ${this.burst + MAX_CANDIDATES} signal requests waiting`);
      return Promise.resolve(true);
    }
    this.queued++;
    const next = this.queue.then(async () => {
      await nextTask();
      return this.closed ? true : this.handle(req);
    });
    this.queue = next.catch(() => {}).finally(() => this.queued--);
    return next;
  }

  /** Refuses a request the participant made, telling it why (LiveKit's RequestResponse). */
  private refuse(request: RequestResponse['request'], reason: RequestResponse_Reason, message: string): void {
    if (this.refusedRequests++ === 0) this.o.log(`[calls] ${this.o.identity}: ${request.case} refused: ${message}`);
    this.send({ case: 'requestResponse', value: new RequestResponse({ reason, message, request }) });
  }

  get sid(): string {
    return this.o.sid;
  }

  get identity(): string {
    return this.o.identity;
  }

  get kind(): ParticipantInfo_Kind {
    return this.o.kind;
  }

  info(): ParticipantInfo {
    return new ParticipantInfo({
      sid: this.o.sid,
      identity: this.o.identity,
      name: this.o.name,
      state: this.closed ? ParticipantInfo_State.DISCONNECTED : ParticipantInfo_State.ACTIVE,
      tracks: [...this.tracks.values()].map((t) => t.info),
      metadata: this.o.metadata,
      joinedAt: BigInt(Math.floor(this.joinedAt / 1000)),
      joinedAtMs: BigInt(this.joinedAt),
      version: this.version,
      permission: new ParticipantPermission({
        canSubscribe: true,
        canPublish: true,
        canPublishData: true,
        agent: this.o.kind === ParticipantInfo_Kind.AGENT,
      }),
      isPublisher: this.tracks.size > 0,
      kind: this.o.kind,
      attributes: this.o.attributes,
    });
  }

  /** The version goes up with every change: LiveKit clients ignore an update older than what they have. */
  bump(): void {
    this.version++;
  }

  send(message: SignalResponse['message']): void {
    if (this.closed || this.o.ws.readyState !== this.o.ws.OPEN) return;
    this.o.ws.send(new SignalResponse({ message }).toBinary());
  }

  /** A request of the participant's; false when it is one the endpoint does not serve. */
  async handle(req: SignalRequest): Promise<boolean> {
    const m = req.message;
    switch (m.case) {
      case 'offer': {
        const refused = sdpRefusal(m.value.sdp, this.o.limits);
        if (refused) this.onRefused?.(`it offered ${refused}`);
        else await this.answerPublisher(m.value);
        return true;
      }
      case 'answer': {
        const refused = sdpRefusal(m.value.sdp, this.o.limits);
        if (refused) {
          this.onRefused?.(`it answered with ${refused}`);
          return true;
        }
        await this.subscriber.setRemoteDescription({ type: 'answer', sdp: m.value.sdp });
        for (const [t, state] of this.pendingSubscribed)
          if (state === 'offered') this.pendingSubscribed.set(t, 'answered');
        this.tellSubscribed();
        this.negotiating = false;
        if (this.renegotiate) {
          this.renegotiate = false;
          await this.negotiate();
        }
        return true;
      }
      case 'trickle': {
        const init = JSON.parse(m.value.candidateInit) as {
          candidate: string;
          sdpMid?: string;
          sdpMLineIndex?: number;
        };
        if (!init.candidate || !candidateUsable(init.candidate)) return true;
        const pc = m.value.target === SignalTarget.SUBSCRIBER ? this.subscriber : this.publisher;
        await pc
          .addIceCandidate(init)
          .catch((e: unknown) => this.o.log(`[calls] ${this.o.sid}: candidate refused: ${(e as Error).message}`));
        return true;
      }
      case 'addTrack':
        this.addTrack(m.value);
        return true;
      case 'mute': {
        const t = this.tracks.get(m.value.sid);
        if (t && t.info.muted !== m.value.muted) {
          t.info.muted = m.value.muted;
          this.bump();
          this.onInfoChanged?.();
        }
        return true;
      }
      case 'updateMetadata':
        this.updateAttributes(m.value);
        return true;
      case 'ping':
        this.send({ case: 'pong', value: m.value });
        return true;
      case 'pingReq':
        this.send({
          case: 'pongResp',
          value: { lastPingTimestamp: m.value.timestamp, timestamp: BigInt(this.o.now()) } as never,
        });
        return true;
      case 'subscription':
        this.onSubscription?.(
          [...m.value.trackSids, ...m.value.participantTracks.flatMap((p) => p.trackSids)],
          m.value.subscribe,
        );
        return true;
      case 'trackSetting':
      case 'updateLayers':
      case 'subscriptionPermission':
      case 'updateAudioTrack':
      case 'updateVideoTrack':
        return true; // every track goes at the one layer there is
      default:
        return false;
    }
  }

  /**
   * Attributes a participant sets on itself (the agent's `lk.agent.state`), if its token allows it: at most
   * MAX_ATTRIBUTES, keys of 64 characters and values of 1,024 at most; an empty value removes the key. The others
   * are told, as LiveKit's server tells them.
   */
  private updateAttributes(u: UpdateParticipantMetadata): void {
    const request = { case: 'updateMetadata' as const, value: u };
    if (!this.o.canUpdateOwnMetadata)
      return this.refuse(request, RequestResponse_Reason.NOT_ALLOWED, 'the token does not allow updating attributes');
    const next = { ...this.o.attributes };
    for (const [k, v] of Object.entries(u.attributes)) {
      if (k.length > 64 || v.length > 1024)
        return this.refuse(
          request,
          RequestResponse_Reason.LIMIT_EXCEEDED,
          'an attribute key over 64 or value over 1024',
        );
      if (v === '') delete next[k];
      else next[k] = v;
    }
    if (Object.keys(next).length > MAX_ATTRIBUTES)
      return this.refuse(request, RequestResponse_Reason.LIMIT_EXCEEDED, `more than ${MAX_ATTRIBUTES} attributes`);
    this.o.attributes = next;
    this.bump();
    this.send({
      case: 'requestResponse',
      value: new RequestResponse({ requestId: u.requestId, reason: RequestResponse_Reason.OK }),
    });
    this.send({ case: 'update', value: { participants: [this.info()] } as never });
    this.onInfoChanged?.();
  }

  /**
   * A track the participant announces: what the endpoint serves is one microphone and one camera (one audio and one
   * video track), each end-to-end encrypted; anything else is refused with LiveKit's RequestResponse.
   */
  private addTrack(r: AddTrackRequest): void {
    const request = { case: 'addTrack' as const, value: r };
    if (r.encryption === Encryption_Type.NONE)
      return this.refuse(
        request,
        RequestResponse_Reason.NOT_ALLOWED,
        'a track without end-to-end encryption: the endpoint forwards only encrypted media',
      );
    const kind = r.type === TrackType.VIDEO ? 'video' : r.type === TrackType.AUDIO ? 'audio' : undefined;
    if (!kind)
      return this.refuse(request, RequestResponse_Reason.UNSUPPORTED_TYPE, 'only audio and video tracks are served');
    if ([...this.tracks.values()].some((t) => t.kind === kind))
      return this.refuse(
        request,
        RequestResponse_Reason.LIMIT_EXCEEDED,
        `a second ${kind} track: one microphone and one camera per participant`,
      );
    const info = new TrackInfo({
      sid: newSid('TR'),
      type: r.type,
      name: r.name,
      muted: r.muted,
      width: r.width,
      height: r.height,
      source: r.source,
      mimeType: r.type === TrackType.AUDIO ? 'audio/opus' : 'video/VP8',
      encryption: r.encryption,
      stream: r.stream,
      disableDtx: r.disableDtx,
      stereo: r.stereo,
      disableRed: true,
    });
    this.tracks.set(info.sid, { info, owner: this, cid: r.cid, kind, sinks: new Map(), paused: new Set() });
    this.send({ case: 'trackPublished', value: { cid: r.cid, track: info } as never });
  }

  /**
   * Media arrived on the publisher connection: the published track it belongs to (by its id, else the first of its
   * kind).
   */
  private incoming(remote: MediaStreamTrack): void {
    const pending = [...this.tracks.values()].filter((t) => !t.remote && t.kind === remote.kind);
    const t = pending.find((p) => p.cid === remote.id) ?? pending[0];
    if (!t) {
      this.o.log(`[calls] ${this.o.sid}: media of a track it did not announce, ignored`);
      return;
    }
    t.remote = remote;
    remote.onReceiveRtp.subscribe((packet) => {
      this.onRtp?.(t, packet);
      for (const [sid, sink] of t.sinks) if (!t.paused.has(sid)) sink.writeRtp(packet.clone());
    });
    this.bump();
    this.onTrackReady?.(t);
  }

  private async answerPublisher(offer: SessionDescription): Promise<void> {
    await this.publisher.setRemoteDescription({ type: 'offer', sdp: negotiableOffer(offer.sdp) });
    await nextTask();
    if (this.closed) return;
    const answer = await this.publisher.createAnswer();
    await nextTask();
    if (this.closed) return;
    await this.publisher.setLocalDescription(answer);
    await gathered(this.publisher);
    this.send({
      case: 'answer',
      value: new SessionDescription({
        type: 'answer',
        sdp: withAudioPtime(this.publisher.localDescription!.sdp, this.o.audioFrameMs),
        id: offer.id,
      }),
    });
  }

  /** Starts sending a track of another participant's to this one (a new m-line, then an offer). */
  async subscribe(t: PublishedTrack): Promise<void> {
    if (t.sinks.has(this.o.sid) || this.closed) return;
    const sink = new MediaStreamTrack({ kind: t.kind, id: t.info.sid, streamId: `${t.owner.sid}|${t.info.sid}` });
    const transceiver: RTCRtpTransceiver = this.subscriber.addTransceiver(sink, {
      direction: 'sendonly',
      streams: [{ id: `${t.owner.sid}|${t.info.sid}` }] as never,
    });
    transceiver.sender.onRtcp.subscribe((rtcp) => {
      // a subscriber asking for a key frame: ask the publisher
      if (rtcp.type === 206 && t.remote?.ssrc !== undefined) void t.owner.requestKeyFrame(t.remote.ssrc);
    });
    t.sinks.set(this.o.sid, sink);
    this.pendingSubscribed.set(t, 'added');
    await this.negotiate();
  }

  /**
   * Tells each track's owner that this participant's subscription to it is live (LiveKit's `trackSubscribed`, which
   * LiveKit's SDKs turn into LocalTrackSubscribed and waitForSubscription()): once its m-line's answer is applied and
   * both connections are up (ICE and DTLS), so that the packets the owner sends from now on reach this participant's
   * application. The publisher connection counts too: it is the primary one here (subscriberPrimary: false), and a
   * LiveKit client emits its TrackSubscribed, where an application starts playing a track, only once its primary
   * connection is up (up to ~200 ms after the subscriber connection: the start of a greeting would be lost). Once
   * per track.
   */
  private tellSubscribed(): void {
    if (
      this.closed ||
      this.subscriber.connectionState !== 'connected' ||
      this.publisher.connectionState !== 'connected'
    )
      return;
    for (const [t, state] of this.pendingSubscribed) {
      if (state !== 'answered') continue;
      this.pendingSubscribed.delete(t);
      if (t.sinks.has(this.o.sid))
        t.owner.send({ case: 'trackSubscribed', value: new TrackSubscribed({ trackSid: t.info.sid }) });
    }
  }

  async requestKeyFrame(ssrc: number): Promise<void> {
    const receiver = this.publisher.getReceivers().find((r) => r.tracks.some((x) => x.ssrc === ssrc));
    await receiver?.sendRtcpPLI(ssrc);
  }

  private async negotiate(): Promise<void> {
    if (this.closed) return;
    if (this.negotiating) {
      this.renegotiate = true;
      return;
    }
    this.negotiating = true;
    // the m-lines added so far are in this offer (one added while it is made waits for the next answer to be told)
    for (const [t, state] of this.pendingSubscribed) if (state === 'added') this.pendingSubscribed.set(t, 'offered');
    const offer = await this.subscriber.createOffer();
    await nextTask();
    if (this.closed) return;
    await this.subscriber.setLocalDescription(offer);
    await gathered(this.subscriber);
    this.send({
      case: 'offer',
      value: new SessionDescription({ type: 'offer', sdp: this.subscriber.localDescription!.sdp, id: ++this.offerId }),
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.onClose?.();
    this.bump();
    for (const t of this.tracks.values()) t.sinks.clear();
    this.pendingSubscribed.clear();
    await Promise.allSettled([this.publisher.close(), this.subscriber.close()]);
  }
}

/**
 * Resolves once the connection's candidates are gathered (they go in the SDP: the endpoint does not trickle its own).
 */
async function gathered(pc: RTCPeerConnection): Promise<void> {
  if (pc.iceGatheringState === 'complete') return;
  await new Promise<void>((resolve) => {
    const sub = pc.iceGatheringStateChange.subscribe((s) => {
      if (s === 'complete') {
        sub.unSubscribe();
        resolve();
      }
    });
    setTimeout(resolve, 2000).unref();
  });
}
