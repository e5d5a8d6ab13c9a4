/**
 * The runtime's persistence over the shared storage module. Every read that
 * returns user data takes the caller's DID: one user never reads another's
 * sessions, history or preferences.
 */
import { randomUUID } from 'node:crypto';
import type { Storage } from '../storage/storage.ts';
import {
  parseMessageId,
  type AnyEvent,
  type Message,
  type MessageContent,
  type RunStatus,
  type Session,
  type ToolCallRecord,
  type TurnOutcome,
} from '../lib/protocol/index.ts';

interface SessionRow {
  id: string;
  user_did: string;
  oracle_did: string;
  title: string;
  state: string;
  created_at: string;
  updated_at: string;
}
interface MessageRow {
  seq: number;
  id: string;
  type: 'human' | 'ai';
  content: string;
  tool_calls: string | null;
  reasoning: string | null;
  /** JSON TurnOutcome; NULL on every row but the human row of an ended turn. */
  turn: string | null;
  created_at: string;
}

export interface NewMessage {
  id: string;
  type: 'human' | 'ai';
  content: MessageContent;
  toolCalls?: ToolCallRecord[];
  reasoning?: string;
  /** On a human row: how its turn ended. */
  turn?: TurnOutcome;
}

export class RuntimeStore {
  readonly db: Storage;
  readonly oracleDid: string;
  readonly oracleName: string;
  /** The clock its timestamps are read from, ms since the epoch (the runtime's). */
  private readonly now: () => number;

  constructor(db: Storage, oracle: { did: string; name: string }, now: () => number = Date.now) {
    this.db = db;
    this.oracleDid = oracle.did;
    this.oracleName = oracle.name;
    this.now = now;
  }

  private isoNow(): string {
    return new Date(this.now()).toISOString();
  }

  /**
   * Writes of the hot path (runs, messages, state) go through the storage's
   * group commit (Storage.write): the writes of one turn of the event loop
   * share one transaction and one fsync, so 200 concurrent turns cost a few
   * fsyncs, not 1000. The promise resolves once the write is durable.
   */
  groupCommit(fn: () => Promise<unknown>): Promise<void> {
    return this.db.write(async () => {
      await fn();
    });
  }

  /** Where a background write's failure is reported (the runtime sets its log; default: nowhere). */
  onBackgroundError: (e: unknown) => void = () => {};

  /**
   * A write nobody waits for (a run's row, a session's state or title): queued like `groupCommit`; a failure
   * (the database away: 503 database_unavailable) is reported, never an unhandled rejection that would
   * end the process.
   */
  background(fn: () => Promise<unknown>): void {
    this.groupCommit(fn).catch((e: unknown) => this.onBackgroundError(e));
  }

  /** Commits every queued write now (shutdown). */
  flush(): Promise<void> {
    return this.db.flush();
  }

  private toSession(r: SessionRow): Session {
    return {
      sessionId: r.id,
      title: r.title,
      createdAt: r.created_at,
      lastUpdatedAt: r.updated_at,
      oracleName: this.oracleName,
      oracleDid: r.oracle_did,
    };
  }

  async createSession(userDid: string, title?: string): Promise<Session> {
    const now = this.isoNow();
    const id = randomUUID();
    await this.db.run(
      'INSERT INTO runtime_sessions (id, user_did, oracle_did, title, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)',
      [id, userDid, this.oracleDid, title ?? 'New chat', now, now],
    );
    return (await this.getSession(userDid, id))!;
  }

  async getSession(userDid: string, id: string): Promise<Session | undefined> {
    const r = await this.db.get<SessionRow>(
      'SELECT * FROM runtime_sessions WHERE id = ? AND user_did = ? AND oracle_did = ?',
      [id, userDid, this.oracleDid],
    );
    return r ? this.toSession(r) : undefined;
  }

  async listSessions(userDid: string, limit: number, offset: number): Promise<{ sessions: Session[]; total: number }> {
    const rows = await this.db.all<SessionRow>(
      'SELECT * FROM runtime_sessions WHERE user_did = ? AND oracle_did = ? ORDER BY updated_at DESC, id LIMIT ? OFFSET ?',
      [userDid, this.oracleDid, limit, offset],
    );
    const total =
      (
        await this.db.get<{ n: number }>(
          'SELECT COUNT(*) AS n FROM runtime_sessions WHERE user_did = ? AND oracle_did = ?',
          [userDid, this.oracleDid],
        )
      )?.n ?? 0;
    return { sessions: rows.map((r) => this.toSession(r)), total };
  }

  async deleteSession(userDid: string, id: string): Promise<boolean> {
    return (
      (
        await this.db.run('DELETE FROM runtime_sessions WHERE id = ? AND user_did = ? AND oracle_did = ?', [
          id,
          userDid,
          this.oracleDid,
        ])
      ).changes > 0
    );
  }

  async touchSession(id: string, title?: string): Promise<void> {
    const now = this.isoNow();
    if (title !== undefined)
      await this.db.run('UPDATE runtime_sessions SET updated_at = ?, title = ? WHERE id = ?', [now, title, id]);
    else await this.db.run('UPDATE runtime_sessions SET updated_at = ? WHERE id = ?', [now, id]);
  }

  async getSessionState(id: string): Promise<Record<string, unknown>> {
    const r = await this.db.get<{ state: string }>('SELECT state FROM runtime_sessions WHERE id = ?', [id]);
    return r ? (JSON.parse(r.state) as Record<string, unknown>) : {};
  }

  async setSessionState(id: string, state: Record<string, unknown>): Promise<void> {
    await this.db.run('UPDATE runtime_sessions SET state = ? WHERE id = ?', [JSON.stringify(state), id]);
  }

  // ---- messages ----------------------------------------------------------
  async addMessages(sessionId: string, msgs: NewMessage[]): Promise<void> {
    const now = this.isoNow();
    await this.db.tx(async () => {
      for (const m of msgs) {
        await this.db.run(
          // a row written again without an outcome keeps the one it has
          `INSERT INTO runtime_messages (id, session_id, type, content, tool_calls, reasoning, turn, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
           ON CONFLICT (session_id, id) DO UPDATE SET content = excluded.content, tool_calls = excluded.tool_calls,
             reasoning = excluded.reasoning, turn = COALESCE(excluded.turn, runtime_messages.turn)`,
          [
            m.id,
            sessionId,
            m.type,
            JSON.stringify(m.content),
            m.toolCalls ? JSON.stringify(m.toolCalls) : null,
            m.reasoning ?? null,
            m.turn ? JSON.stringify(m.turn) : null,
            now,
          ],
        );
      }
    });
  }

  private toMessage(r: MessageRow): Message {
    const m: Message = {
      id: r.id,
      type: r.type,
      content: JSON.parse(r.content) as MessageContent,
      createdAt: r.created_at,
    };
    if (r.tool_calls) m.toolCalls = JSON.parse(r.tool_calls) as ToolCallRecord[];
    if (r.reasoning !== null) m.reasoning = r.reasoning;
    if (r.turn) m.turn = JSON.parse(r.turn) as TurnOutcome;
    // the reasoning row reads back as the IXO SDK streamed it (protocol.md, "Messages and history ids")
    if (r.type === 'ai' && parseMessageId(r.id).part === 'reasoning') m.isReasoning = true;
    return m;
  }

  /** Whole history (caller's session only — checked by the route). */
  async history(sessionId: string): Promise<Message[]> {
    return (
      await this.db.all<MessageRow>('SELECT * FROM runtime_messages WHERE session_id = ? ORDER BY seq', [sessionId])
    ).map((r) => this.toMessage(r));
  }

  /** One page; cursors are message sequence numbers as strings. */
  async historyPage(sessionId: string, limit: number, before?: string, after?: string) {
    let rows: MessageRow[];
    if (after !== undefined) {
      rows = await this.db.all<MessageRow>(
        'SELECT * FROM runtime_messages WHERE session_id = ? AND seq > ? ORDER BY seq ASC LIMIT ?',
        [sessionId, Number(after) || 0, limit],
      );
    } else {
      const b = before !== undefined ? Number(before) || 0 : Number.MAX_SAFE_INTEGER;
      rows = (
        await this.db.all<MessageRow>(
          'SELECT * FROM runtime_messages WHERE session_id = ? AND seq < ? ORDER BY seq DESC LIMIT ?',
          [sessionId, b, limit],
        )
      ).reverse();
    }
    const first = rows[0]?.seq;
    const last = rows[rows.length - 1]?.seq;
    const count = async (sql: string, v: number) =>
      ((await this.db.get<{ n: number }>(sql, [sessionId, v]))?.n ?? 0) > 0;
    const hasOlder =
      first !== undefined &&
      (await count('SELECT COUNT(*) AS n FROM runtime_messages WHERE session_id = ? AND seq < ?', first));
    const hasNewer =
      last !== undefined &&
      (await count('SELECT COUNT(*) AS n FROM runtime_messages WHERE session_id = ? AND seq > ?', last));
    return {
      messages: rows.map((r) => this.toMessage(r)),
      prevCursor: hasOlder && first !== undefined ? String(first) : null,
      nextCursor: hasNewer && last !== undefined ? String(last) : null,
      hasOlder,
      hasNewer,
    };
  }

  // ---- runs --------------------------------------------------------------
  async createRun(run: {
    id: string;
    sessionId: string;
    userDid: string;
    requestId: string;
    status: RunStatus;
  }): Promise<void> {
    const now = this.isoNow();
    await this.db.run(
      'INSERT INTO runtime_runs (id, session_id, user_did, request_id, status, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
      [run.id, run.sessionId, run.userDid, run.requestId, run.status, now, now],
    );
  }

  async setRunStatus(id: string, status: RunStatus): Promise<void> {
    await this.db.run('UPDATE runtime_runs SET status = ?, updated_at = ? WHERE id = ?', [status, this.isoNow(), id]);
  }

  async getRun(
    userDid: string,
    id: string,
  ): Promise<{ runId: string; sessionId: string; requestId: string; status: RunStatus } | undefined> {
    const r = await this.db.get<{ id: string; session_id: string; request_id: string; status: RunStatus }>(
      'SELECT id, session_id, request_id, status FROM runtime_runs WHERE id = ? AND user_did = ?',
      [id, userDid],
    );
    return r ? { runId: r.id, sessionId: r.session_id, requestId: r.request_id, status: r.status } : undefined;
  }

  async latestRun(sessionId: string): Promise<{ runId: string; status: RunStatus } | undefined> {
    // the insertion order breaks a tie of created_at: SQLite's rowid, PostgreSQL's identity column seq (migrations.ts)
    const order = this.db.dialect === 'postgres' ? 'seq' : 'rowid';
    const r = await this.db.get<{ id: string; status: RunStatus }>(
      `SELECT id, status FROM runtime_runs WHERE session_id = ? ORDER BY created_at DESC, ${order} DESC LIMIT 1`,
      [sessionId],
    );
    return r ? { runId: r.id, status: r.status } : undefined;
  }

  /** The run's whole event log, one row per run (replay after it left memory). */
  async finishRun(runId: string, status: RunStatus, events: AnyEvent[]): Promise<void> {
    await this.db.run('UPDATE runtime_runs SET status = ?, events = ?, updated_at = ? WHERE id = ?', [
      status,
      JSON.stringify(events),
      this.isoNow(),
      runId,
    ]);
  }

  /**
   * How a run ended, with its row if the start's write was lost (the database away then: runs.ts, storeEnd);
   * nothing when its session was deleted meanwhile.
   */
  async endRun(
    run: { id: string; sessionId: string; userDid: string; requestId: string },
    status: RunStatus,
    events: AnyEvent[],
  ): Promise<void> {
    const now = this.isoNow();
    await this.db.run(
      `INSERT INTO runtime_runs (id, session_id, user_did, request_id, status, created_at, updated_at)
       SELECT ?, ?, ?, ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM runtime_sessions WHERE id = ?) ON CONFLICT (id) DO NOTHING`,
      [run.id, run.sessionId, run.userDid, run.requestId, status, now, now, run.sessionId],
    );
    await this.finishRun(run.id, status, events);
  }

  async runEvents(runId: string, after: number): Promise<AnyEvent[]> {
    const r = await this.db.get<{ events: string | null }>('SELECT events FROM runtime_runs WHERE id = ?', [runId]);
    return r?.events ? (JSON.parse(r.events) as AnyEvent[]).filter((e) => e.id > after) : [];
  }

  /** Runs left running by a previous process become failed (their stream is gone). */
  async failOrphanRuns(): Promise<void> {
    await this.db.run(
      "UPDATE runtime_runs SET status = 'failed', updated_at = ? WHERE status IN ('queued', 'running', 'recovering')",
      [this.isoNow()],
    );
  }

  // ---- preferences (room = user × oracle) --------------------------------
  async getPreferences(userDid: string): Promise<Record<string, unknown>> {
    const r = await this.db.get<{ prefs: string }>(
      'SELECT prefs FROM runtime_preferences WHERE user_did = ? AND oracle_did = ?',
      [userDid, this.oracleDid],
    );
    return r ? (JSON.parse(r.prefs) as Record<string, unknown>) : {};
  }

  async setPreferences(userDid: string, prefs: Record<string, unknown>): Promise<void> {
    await this.db.run(
      `INSERT INTO runtime_preferences (user_did, oracle_did, prefs, updated_at) VALUES (?, ?, ?, ?)
       ON CONFLICT (user_did, oracle_did) DO UPDATE SET prefs = excluded.prefs, updated_at = excluded.updated_at`,
      [userDid, this.oracleDid, JSON.stringify(prefs), this.isoNow()],
    );
  }

  // ---- delegations and revocations ---------------------------------------
  async saveDelegation(userDid: string, cid: string, raw: string, expiration: number | null): Promise<void> {
    await this.db.run(
      `INSERT INTO runtime_delegations (user_did, oracle_did, cid, raw, expiration, created_at) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (user_did, oracle_did) DO UPDATE SET cid = excluded.cid, raw = excluded.raw, expiration = excluded.expiration, created_at = excluded.created_at`,
      [userDid, this.oracleDid, cid, raw, expiration, this.isoNow()],
    );
  }

  async getDelegation(userDid: string): Promise<{ cid: string; raw: string; expiration: number | null } | undefined> {
    return await this.db.get<{ cid: string; raw: string; expiration: number | null }>(
      'SELECT cid, raw, expiration FROM runtime_delegations WHERE user_did = ? AND oracle_did = ?',
      [userDid, this.oracleDid],
    );
  }

  async deleteDelegation(userDid: string): Promise<string | undefined> {
    const d = await this.getDelegation(userDid);
    await this.db.run('DELETE FROM runtime_delegations WHERE user_did = ? AND oracle_did = ?', [
      userDid,
      this.oracleDid,
    ]);
    return d?.cid;
  }

  async revoke(cid: string): Promise<void> {
    await this.db.run('INSERT INTO runtime_revocations (cid, revoked_at) VALUES (?, ?) ON CONFLICT (cid) DO NOTHING', [
      cid,
      this.isoNow(),
    ]);
  }

  async isRevoked(cid: string): Promise<boolean> {
    return (await this.db.get('SELECT 1 AS x FROM runtime_revocations WHERE cid = ?', [cid])) !== undefined;
  }
}
