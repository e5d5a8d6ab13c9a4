/**
 * The embedded endpoint on a thread of its own (worker.ts), as the oracle
 * runs it: the oracle's event loop runs turns, the agents and its HTTP API,
 * and the endpoint's thread forwards the calls' media and reads what
 * participants signal, so a call's packets never wait for a turn and a turn
 * never waits for a call's packets (docs/live-agent.md, "The embedded
 * endpoint").
 *
 * The oracle's HTTP server still owns `<prefix>/rtc`: an upgrade is relayed
 * byte for byte to the thread's own server on 127.0.0.1 (only signalling
 * crosses the relay; media goes to the thread's UDP ports directly), and the
 * thread asks the oracle, for every join, whether the room's call is live.
 * Joining the thread's server directly gives nothing more: it admits only
 * tokens signed with this process's key, for a live call's room.
 */
import { connect } from 'node:net';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { Worker } from 'node:worker_threads';
import type { AudioFrameMs, EndpointLimits } from './endpoint.ts';
import type { UserPacket } from '../user-audio.ts';

/** What the thread's endpoint is made with (plain data: it crosses to the thread). */
export interface EndpointSettings {
  apiKey: string;
  apiSecret: string;
  prefix: string;
  mediaAddress: string;
  audioFrameMs: AudioFrameMs;
  limits: Partial<EndpointLimits>;
}

/** Messages to the endpoint's thread. */
export type ToEndpoint =
  | { op: 'validate'; id: number; url: string; authorization: string | undefined }
  | { op: 'closeRoom'; id: number; name: string }
  | { op: 'tap'; id: number; room: string; identity: string }
  | { op: 'untap'; id: number; tap: number }
  | { op: 'close'; id: number }
  | { op: 'admitted'; id: number; refusal: string | undefined };

/** Messages from the endpoint's thread. */
export type FromEndpoint =
  | { type: 'ready'; port: number }
  | { type: 'reply'; id: number; value: unknown; error?: string }
  | { type: 'admit'; id: number; room: string; identity: string }
  | { type: 'presence'; room: string; identity: string; present: boolean }
  | { type: 'log'; line: string }
  | ({ type: 'audio'; tap: number } & UserPacket);

export interface EndpointThreadOptions extends EndpointSettings {
  log: (line: string) => void;
  /** Whether a room may be joined now: undefined admits, a string is the refusal (403). */
  admitRoom: (room: string, identity: string) => string | undefined;
  /** A participant joined (true) or left (false) a room. */
  onPresence: (room: string, identity: string, present: boolean) => void;
  /** The thread ended without being closed (it failed): its calls' media went with it. */
  onExit: (why: string) => void;
}

/** How long the thread may take to load the endpoint (werift and LiveKit's protocol) and listen. */
const START_TIMEOUT_MS = 30_000;

export class EndpointThread {
  private readonly worker: Worker;
  /** The thread's server on 127.0.0.1. */
  private readonly port: number;
  private readonly pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  private nextId = 0;
  private closing = false;
  /** Where each tap's packets go. */
  private readonly taps = new Map<number, (p: UserPacket) => void>();

  private constructor(worker: Worker, port: number) {
    this.worker = worker;
    this.port = port;
  }

  /** Starts the thread and waits until its endpoint listens. */
  static start(o: EndpointThreadOptions): Promise<EndpointThread> {
    const ext = import.meta.url.endsWith('.ts') ? '.ts' : '.js';
    const settings: EndpointSettings = {
      apiKey: o.apiKey,
      apiSecret: o.apiSecret,
      prefix: o.prefix,
      mediaAddress: o.mediaAddress,
      audioFrameMs: o.audioFrameMs,
      limits: o.limits,
    };
    const worker = new Worker(new URL(`./worker${ext}`, import.meta.url), { workerData: settings });
    // the thread's server and sockets do not keep the process alive: the oracle closes it as it stops
    worker.unref();
    return new Promise((resolve, reject) => {
      let thread: EndpointThread | undefined;
      const timer = setTimeout(() => {
        void worker.terminate();
        reject(new Error(`the endpoint's thread did not start within ${START_TIMEOUT_MS / 1000} s`));
      }, START_TIMEOUT_MS);
      worker.on('message', (m: FromEndpoint) => {
        switch (m.type) {
          case 'ready':
            clearTimeout(timer);
            thread = new EndpointThread(worker, m.port);
            o.log(`[calls] the embedded endpoint runs on its own thread (signalling relayed to 127.0.0.1:${m.port})`);
            return resolve(thread);
          case 'reply': {
            const p = thread?.pending.get(m.id);
            thread?.pending.delete(m.id);
            if (m.error !== undefined) p?.reject(new Error(m.error));
            else p?.resolve(m.value);
            return;
          }
          case 'admit':
            return worker.postMessage({
              op: 'admitted',
              id: m.id,
              refusal: o.admitRoom(m.room, m.identity),
            } satisfies ToEndpoint);
          case 'presence':
            return o.onPresence(m.room, m.identity, m.present);
          case 'log':
            return o.log(m.line);
          case 'audio':
            return thread?.taps.get(m.tap)?.(m);
        }
      });
      worker.on('error', (e) => o.log(`[calls] the endpoint's thread failed: ${e.message}`));
      worker.on('exit', (code) => {
        clearTimeout(timer);
        const why = `the endpoint's thread ended (exit code ${code})`;
        for (const p of thread?.pending.values() ?? []) p.reject(new Error(why));
        thread?.pending.clear();
        if (!thread) reject(new Error(why));
        else if (!thread.closing) o.onExit(why);
      });
    });
  }

  private ask<T>(m: ToEndpoint): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.pending.set(m.id, { resolve: resolve as (v: unknown) => void, reject });
      this.worker.postMessage(m);
    });
  }

  /** The answer of `GET <prefix>/rtc/validate`. */
  validate(req: IncomingMessage): Promise<{ status: number; body: string }> {
    return this.ask({
      op: 'validate',
      id: ++this.nextId,
      url: req.url ?? '/',
      authorization: req.headers.authorization,
    });
  }

  /**
   * Relays an upgrade of `<prefix>/rtc…` to the thread's server, byte for byte both ways: the request as it came,
   * then the connection. Either side closing closes the other.
   */
  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    const conn = connect(this.port, '127.0.0.1');
    conn.setNoDelay(true);
    const lines = [`${req.method} ${req.url} HTTP/1.1`];
    for (let i = 0; i < req.rawHeaders.length; i += 2) lines.push(`${req.rawHeaders[i]}: ${req.rawHeaders[i + 1]}`);
    conn.write(`${lines.join('\r\n')}\r\n\r\n`);
    if (head.length > 0) conn.write(head);
    socket.pipe(conn).pipe(socket);
    const end = () => {
      socket.destroy();
      conn.destroy();
    };
    for (const s of [socket, conn]) {
      s.on('error', end);
      s.on('close', end);
    }
  }

  /** Ends a room: every participant is told to leave and disconnected. */
  closeRoom(name: string): Promise<void> {
    return this.ask({ op: 'closeRoom', id: ++this.nextId, name });
  }

  /**
   * Hands over each RTP packet of a participant's audio in a room as it arrives, still encrypted (user-audio.ts opens
   * it), until the returned function is called: how the call's agent hears its user without a jitter buffer. Packets of
   * the participant's next connection to the room come too; the tap ends with the room.
   */
  async tapAudio(room: string, identity: string, onPacket: (p: UserPacket) => void): Promise<() => void> {
    const id = ++this.nextId;
    this.taps.set(id, onPacket);
    try {
      await this.ask({ op: 'tap', id, room, identity });
    } catch (e) {
      this.taps.delete(id);
      throw e;
    }
    return () => {
      if (!this.taps.delete(id) || this.closing) return;
      void this.ask({ op: 'untap', id: ++this.nextId, tap: id }).catch(() => {});
    };
  }

  /** Closes every room and the thread's server, then ends the thread. */
  async close(): Promise<void> {
    if (this.closing) return;
    this.closing = true;
    await this.ask({ op: 'close', id: ++this.nextId }).catch(() => {});
    await this.worker.terminate();
  }
}
