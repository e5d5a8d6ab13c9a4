/**
 * The embedded LiveKit-protocol endpoint (docs/live-agent.md, "The embedded
 * endpoint"): a small SFU for calls with an oracle, not a conference server.
 * It serves LiveKit's signal WebSocket at `<base>/rtc` (the dual peer
 * connection path; `<base>/rtc/v1` answers 404 so clients fall back to it),
 * admits a participant with a LiveKit access token signed by its own key, and
 * forwards each participant's RTP to the others of the room untouched. A room
 * holds at most MAX_PARTICIPANTS (the user, the agent and an observer).
 *
 * What a participant may do is bounded (SignalLimits), so that one caller cannot hold the event loop that also
 * forwards every other call's media and runs every user's turns: its signal messages per second, the size and
 * media sections of its SDP, its tracks (one microphone, one camera, end-to-end encrypted), and how long it may stay
 * without a media connection.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { TokenVerifier, type ClaimGrants } from 'livekit-server-sdk';
import { WebSocketServer, type WebSocket } from 'ws';
import {
  ClientConfiguration,
  DisconnectReason,
  JoinResponse,
  ParticipantInfo_Kind,
  Room,
  ServerInfo,
  ServerInfo_Edition,
  SignalRequest,
} from '@livekit/protocol';
import { newSid, Peer, type PublishedTrack, type SignalLimits } from './peer.ts';
import { DataRelay, DEFAULT_DATA_LIMITS, type DataLimits } from './data.ts';
import type { RtpPacket } from 'werift';

const MAX_PARTICIPANTS = 3;
/** The LiveKit server version the endpoint reports (clients gate a few features on it). */
const SERVER_VERSION = '1.9.0';
const PROTOCOL = 16;
/**
 * The first byte of a SignalRequest that carries an ICE candidate (its oneof field 3, `trickle`, length-delimited):
 * candidates are counted apart from the other messages before anything is decoded (Peer.allowSignal).
 */
const TRICKLE_TAG = (3 << 3) | 2;

interface EndpointOptions {
  apiKey: string;
  apiSecret: string;
  /** The path prefix the endpoint serves under (the oracle's mount prefix), '' at the root. */
  prefix?: string;
  /** The IPv4 address media binds to (default 127.0.0.1; 0.0.0.0 for every interface). */
  mediaAddress?: string;
  /** The Opus frame length (ms) asked of the users' microphones and of the agent's: 10 or 20 (DEFAULT_AUDIO_FRAME_MS). */
  audioFrameMs?: Partial<AudioFrameMs>;
  log?: (line: string) => void;
  /**
   * The clock the rooms' and participants' times are stamped with, ms since the epoch: the plugin context's now in an
   * oracle; the system clock for an endpoint served on its own (a LiveKit-protocol server without a runtime).
   */
  now?: () => number;
  /** What one participant may do (defaults: DEFAULT_SIGNAL_LIMITS). */
  limits?: Partial<EndpointLimits>;
  /**
   * Whether a room may be joined now: undefined admits, a string is the refusal (403), e.g. the room of a call that
   * has ended. Asked at /rtc/validate and at every /rtc upgrade. Unset: every room a valid token names.
   */
  admitRoom?: (room: string, identity: string) => string | undefined | Promise<string | undefined>;
  /** A participant joined (true) or left (false) a room. */
  onPresence?: (room: string, identity: string, present: boolean) => void;
}

/** The Opus frame length (ms) the endpoint's answer asks of a publisher's audio, for a user and for the agent. */
export interface AudioFrameMs {
  user: number;
  agent: number;
}

/**
 * 10 ms from a user, whose speech then reaches the agent sooner; 20 ms (WebRTC's default) from the agent, whose voice
 * goes to everyone in the call (docs/live-agent.md, "Latency and cost").
 */
export const DEFAULT_AUDIO_FRAME_MS: AudioFrameMs = { user: 10, agent: 20 };

export interface EndpointLimits extends SignalLimits, DataLimits {
  /** A participant none of whose connections carries media after this long (ms) is dropped. */
  mediaTimeoutMs: number;
}

export const DEFAULT_ENDPOINT_LIMITS: EndpointLimits = {
  signalPerSecond: 20,
  sdpMaxBytes: 65_536,
  // LiveKit's native SDKs (rtc-node) offer three receive-only audio and three video sections, a data section and then
  // the participant's tracks: 9 for a microphone and a camera, with room for the sections a renegotiation adds
  sdpMaxMediaSections: 16,
  mediaTimeoutMs: 20_000,
  ...DEFAULT_DATA_LIMITS,
};

interface EndpointRoom {
  sid: string;
  name: string;
  createdAt: number;
  peers: Map<string, Peer>;
}

/** What a joining participant is told: the room, itself, who is already there and what the endpoint is. */
function joinResponse(room: EndpointRoom, peer: Peer, others: Peer[]): JoinResponse {
  return new JoinResponse({
    room: new Room({
      sid: room.sid,
      name: room.name,
      maxParticipants: MAX_PARTICIPANTS,
      creationTime: BigInt(Math.floor(room.createdAt / 1000)),
      creationTimeMs: BigInt(room.createdAt),
      numParticipants: room.peers.size,
    }),
    participant: peer.info(),
    otherParticipants: others.map((p) => p.info()),
    serverVersion: SERVER_VERSION,
    iceServers: [],
    subscriberPrimary: false,
    pingTimeout: 15,
    pingInterval: 5,
    serverInfo: new ServerInfo({
      edition: ServerInfo_Edition.Standard,
      version: SERVER_VERSION,
      protocol: PROTOCOL,
      nodeId: 'oraclekit-embedded',
    }),
    clientConfiguration: new ClientConfiguration({}),
  });
}

export class LiveKitEndpoint {
  private readonly o: EndpointOptions;
  private readonly now: () => number;
  private readonly verifier: TokenVerifier;
  private readonly wss: WebSocketServer;
  readonly rooms = new Map<string, EndpointRoom>();
  private readonly log: (line: string) => void;
  readonly limits: EndpointLimits;
  private readonly audioFrameMs: AudioFrameMs;
  /** Every RTP packet a participant publishes, before it is forwarded (tests read the payloads). */
  onRtp: ((room: string, from: string, track: PublishedTrack, packet: RtpPacket) => void) | undefined;

  constructor(o: EndpointOptions) {
    this.now = o.now ?? Date.now;
    this.o = o;
    this.verifier = new TokenVerifier(o.apiKey, o.apiSecret);
    this.log = o.log ?? (() => {});
    this.limits = { ...DEFAULT_ENDPOINT_LIMITS, ...o.limits };
    this.audioFrameMs = { ...DEFAULT_AUDIO_FRAME_MS, ...o.audioFrameMs };
    // a signal message is at most an SDP and its envelope: a larger frame closes the connection (ws: 1009)
    this.wss = new WebSocketServer({ noServer: true, maxPayload: this.limits.sdpMaxBytes + 4096 });
  }

  /** Serves the signal path of an HTTP server's upgrades (other paths are left to their owners). */
  attach(server: Server): () => void {
    const onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer) => {
      void this.upgrade(req, socket, head);
    };
    server.on('upgrade', onUpgrade);
    return () => server.off('upgrade', onUpgrade);
  }

  private path(url: string | undefined): { path: string; query: URLSearchParams } {
    const u = new URL(url ?? '/', 'http://x');
    const prefix = this.o.prefix ?? '';
    const path = u.pathname.startsWith(prefix) ? u.pathname.slice(prefix.length) : u.pathname;
    return { path, query: u.searchParams };
  }

  /**
   * The answer of `GET <base>/rtc/validate` (the request's URL and Authorization header): why a join would be
   * refused, as LiveKit's server says it.
   */
  async validate(url: string, authorization?: string): Promise<{ status: number; body: string }> {
    const r = await this.admit(tokenOf(authorization, this.path(url).query));
    return 'error' in r ? { status: r.status, body: r.error } : { status: 200, body: 'success' };
  }

  private async admit(
    token: string | null,
  ): Promise<{ claims: ClaimGrants; room: string } | { status: number; error: string }> {
    if (!token) return { status: 401, error: 'no access_token' };
    let claims: ClaimGrants;
    try {
      claims = await this.verifier.verify(token);
    } catch (e) {
      return { status: 401, error: `invalid token: ${(e as Error).message}` };
    }
    const room = claims.video?.room;
    if (!claims.video?.roomJoin || !room) return { status: 401, error: 'the token grants no room join' };
    if (!claims.sub) return { status: 401, error: 'the token names no identity' };
    const refused = await this.o.admitRoom?.(room, claims.sub);
    if (refused !== undefined) return { status: 403, error: refused };
    const existing = this.rooms.get(room);
    const others = existing ? [...existing.peers.values()].filter((p) => p.o.identity !== claims.sub) : [];
    if (others.length >= MAX_PARTICIPANTS)
      return { status: 403, error: `room ${room} is full: ${MAX_PARTICIPANTS} participants at most` };
    return { claims, room };
  }

  async upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    const { path, query } = this.path(req.url);
    if (path === '/rtc/v1') return refuse(socket, 404, 'only the /rtc signal path is served');
    if (path !== '/rtc') return;
    const r = await this.admit(tokenOf(req.headers.authorization, query));
    if ('error' in r) {
      this.log(`[calls] join refused: ${r.error}`);
      return refuse(socket, r.status, r.error);
    }
    this.wss.handleUpgrade(req, socket, head, (ws) => this.join(ws, r.claims, r.room, query));
  }

  private join(ws: WebSocket, claims: ClaimGrants, roomName: string, query: URLSearchParams): void {
    const room = this.rooms.get(roomName) ?? this.openRoom(roomName);
    // the same identity again (a rejoin): the old connection goes
    for (const p of room.peers.values()) if (p.o.identity === claims.sub) void this.leave(room, p);
    const agent = claims.video?.agent === true || claims.kind === 'agent';
    const peer = new Peer({
      sid: newSid('PA'),
      identity: claims.sub!,
      name: claims.name ?? claims.sub!,
      kind: agent ? ParticipantInfo_Kind.AGENT : ParticipantInfo_Kind.STANDARD,
      attributes: claims.attributes ?? {},
      metadata: claims.metadata ?? '',
      ws,
      mediaAddress: this.o.mediaAddress ?? '127.0.0.1',
      audioFrameMs: this.audioFrameMs[agent ? 'agent' : 'user'],
      limits: this.limits,
      canUpdateOwnMetadata: claims.video?.canUpdateOwnMetadata === true,
      log: this.log,
      now: this.now,
    });
    const others = [...room.peers.values()];
    room.peers.set(peer.sid, peer);
    peer.onTrackReady = (t) => {
      this.broadcast(room, peer);
      for (const other of room.peers.values()) if (other !== peer) void other.subscribe(t).catch(this.fail(other));
    };
    peer.onInfoChanged = () => this.broadcast(room, peer);
    peer.onSubscription = (sids, subscribe) => this.subscription(room, peer, sids, subscribe);
    const data = new DataRelay(peer, () => room.peers.values(), this.limits, this.log);
    peer.onDataChannel = (dc) => data.adopt(dc);
    peer.onRtp = (t, packet) => this.onRtp?.(room.name, peer.o.identity, t, packet);
    peer.onRefused = (why) => {
      this.log(`[calls] ${peer.o.identity} dropped from room ${room.name}: ${why}`);
      peer.send({
        case: 'leave',
        value: { canReconnect: false, reason: DisconnectReason.PARTICIPANT_REMOVED } as never,
      });
      void this.leave(room, peer);
    };
    ws.on('message', (data: Buffer, binary: boolean) => this.onSignal(room, peer, data, binary));
    ws.on('close', () => void this.leave(room, peer));
    ws.on('error', () => void this.leave(room, peer));
    // a participant that never brings media up (no ICE, no DTLS) holds nothing for long
    const mediaTimer = setTimeout(() => {
      if (!peer.closed && !peer.mediaConnected)
        peer.onRefused?.(`no media connection within ${this.limits.mediaTimeoutMs / 1000} s`);
    }, this.limits.mediaTimeoutMs);
    mediaTimer.unref();
    peer.onClose = () => clearTimeout(mediaTimer);
    peer.send({ case: 'join', value: joinResponse(room, peer, others) });
    this.log(
      `[calls] ${peer.o.identity} joined room ${room.name} (${room.peers.size} participant(s), protocol ${query.get('protocol') ?? '?'})`,
    );
    this.o.onPresence?.(room.name, peer.o.identity, true);
    this.broadcast(room, peer);
    // what the others already publish
    for (const o of others)
      for (const t of o.tracks.values()) if (t.remote) void peer.subscribe(t).catch(this.fail(peer));
  }

  /** A room comes into being with its first participant. */
  private openRoom(name: string): EndpointRoom {
    const room: EndpointRoom = { sid: newSid('RM'), name, createdAt: this.now(), peers: new Map() };
    this.rooms.set(name, room);
    return room;
  }

  /**
   * A participant's signal request: a leave leaves, anything else goes to its peer, one at a time (what it does not
   * serve is logged). Past its rate the message is refused; a participant that keeps on is dropped.
   */
  private onSignal(r: EndpointRoom, peer: Peer, data: Buffer, binary: boolean): void {
    if (peer.closed) return;
    if (!binary) return;
    if (!peer.allowSignal(data[0] === TRICKLE_TAG)) return;
    let req: SignalRequest;
    try {
      req = SignalRequest.fromBinary(new Uint8Array(data));
    } catch {
      this.log(`[calls] ${peer.sid}: an undecodable signal message, ignored`);
      return;
    }
    if (req.message.case === 'leave') {
      void this.leave(r, peer);
      return;
    }
    peer.enqueue(req).then((served) => {
      if (!served) this.log(`[calls] ${peer.sid}: signal request '${req.message.case}' is not served, ignored`);
    }, this.fail(peer));
  }

  /**
   * A participant unsubscribes from others' tracks, or subscribes to them again (LiveKit's UpdateSubscription, e.g.
   * the agent from a microphone it hears through its tap): the packets of an unsubscribed track stop going to it, on
   * the same m-line (no renegotiation); subscribing again resumes them, a video's publisher asked for a key frame.
   * Track sids of no one else's in the room are ignored.
   */
  private subscription(room: EndpointRoom, peer: Peer, sids: string[], subscribe: boolean): void {
    for (const other of room.peers.values()) {
      if (other === peer) continue;
      for (const sid of sids) {
        const t = other.tracks.get(sid);
        if (!t) continue;
        if (!subscribe) t.paused.add(peer.sid);
        else if (t.paused.delete(peer.sid) && t.kind === 'video' && t.remote?.ssrc !== undefined)
          void other.requestKeyFrame(t.remote.ssrc).catch(this.fail(other));
      }
    }
  }

  private fail(peer: Peer) {
    return (e: unknown) => this.log(`[calls] ${peer.sid}: ${(e as Error).message}`);
  }

  /** Tells the others of the room what changed about a participant. */
  private broadcast(room: EndpointRoom, about: Peer): void {
    const info = about.info();
    for (const p of room.peers.values())
      if (p !== about) p.send({ case: 'update', value: { participants: [info] } as never });
  }

  private async leave(room: EndpointRoom, peer: Peer): Promise<void> {
    if (!room.peers.has(peer.sid)) return;
    room.peers.delete(peer.sid);
    // its own tracks stop going out as it closes (peer.close); the others' stop going to it here
    for (const p of room.peers.values())
      for (const t of p.tracks.values()) {
        t.sinks.delete(peer.sid);
        t.paused.delete(peer.sid);
      }
    await peer.close();
    this.broadcast(room, peer);
    if (peer.o.ws.readyState === peer.o.ws.OPEN) peer.o.ws.close();
    if (room.peers.size === 0 && this.rooms.get(room.name) === room) this.rooms.delete(room.name);
    this.log(`[calls] ${peer.o.identity} left room ${room.name}`);
    // a rejoin of the same identity replaces this connection: it did not leave the room
    if (![...room.peers.values()].some((p) => p.o.identity === peer.o.identity))
      this.o.onPresence?.(room.name, peer.o.identity, false);
  }

  /** Ends a room: every participant is told to leave and disconnected. */
  async closeRoom(name: string): Promise<void> {
    const room = this.rooms.get(name);
    if (!room) return;
    for (const p of [...room.peers.values()]) {
      p.send({ case: 'leave', value: { canReconnect: false, reason: DisconnectReason.ROOM_DELETED } as never });
      await this.leave(room, p);
    }
    this.rooms.delete(name);
  }

  async close(): Promise<void> {
    await Promise.all([...this.rooms.keys()].map((n) => this.closeRoom(n)));
    this.wss.close();
  }
}

/** The access token: LiveKit's JS client sends it as a query parameter, the native SDKs as a Bearer header. */
function tokenOf(authorization: string | undefined, query: URLSearchParams): string | null {
  if (authorization?.startsWith('Bearer ')) return authorization.slice(7).trim();
  return query.get('access_token');
}

function refuse(socket: Duplex, status: number, message: string): void {
  const reason = status === 401 ? 'Unauthorized' : status === 403 ? 'Forbidden' : 'Not Found';
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: text/plain\r\nContent-Length: ${Buffer.byteLength(message)}\r\nConnection: close\r\n\r\n${message}`,
  );
}

/**
 * The endpoint on an HTTP server of its own, standing in for a LiveKit
 * deployment (an oracle points LIVEKIT_URL, LIVEKIT_API_KEY and
 * LIVEKIT_API_SECRET at it): the signal path and `GET /rtc/validate`.
 */
export async function listenLiveKitEndpoint(
  o: EndpointOptions & { host?: string; port?: number },
): Promise<{ endpoint: LiveKitEndpoint; url: string; close(): Promise<void> }> {
  const endpoint = new LiveKitEndpoint(o);
  const server = createServer((req, res) => {
    void (async () => {
      const r = new URL(req.url ?? '/', 'http://x').pathname.endsWith('/rtc/validate')
        ? await endpoint.validate(req.url ?? '/', req.headers.authorization)
        : { status: 404, body: 'not found' };
      res.writeHead(r.status, { 'content-type': 'text/plain' }).end(r.body);
    })();
  });
  const detach = endpoint.attach(server);
  await new Promise<void>((r) => server.listen(o.port ?? 0, o.host ?? '127.0.0.1', r));
  const a = server.address() as AddressInfo;
  return {
    endpoint,
    url: `ws://${a.address}:${a.port}`,
    close: async () => {
      detach();
      await endpoint.close();
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
