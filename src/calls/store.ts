/**
 * The calls of the oracle in the runtime's database (migration area 'calls'):
 * one row per call, owned by its user. The per-call encryption key is kept
 * while the call can still be joined (the oracle's agent needs it) and erased
 * when the call ends.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { Migration, PluginContext, Storage } from 'oraclekit/plugin';
import type { Call, CallStatus, CallType } from 'oraclekit/plugin';

const CALLS_MIGRATIONS: Migration[] = [
  {
    version: 1,
    description: 'calls: one row per live call, its status and its per-call key',
    sql: `
      CREATE TABLE calls_calls (
        id TEXT PRIMARY KEY, user_did TEXT NOT NULL, oracle_did TEXT NOT NULL, session_id TEXT NOT NULL,
        call_type TEXT NOT NULL CHECK (call_type IN ('audio', 'video')),
        status TEXT NOT NULL CHECK (status IN ('pending', 'active', 'ended')),
        agent_voice TEXT, language TEXT, encryption_key TEXT,
        created_at TEXT NOT NULL, started_at TEXT, ended_at TEXT
      );
      CREATE INDEX calls_calls_user ON calls_calls (user_did, oracle_did, created_at DESC);
`,
  },
];

interface CallRow {
  id: string;
  user_did: string;
  oracle_did: string;
  session_id: string;
  call_type: CallType;
  status: CallStatus;
  agent_voice: string | null;
  language: string | null;
  encryption_key: string | null;
  created_at: string;
  started_at: string | null;
  ended_at: string | null;
}

export class CallStore {
  private readonly db: Storage;
  private readonly oracleDid: string;
  private readonly ctx: Pick<PluginContext, 'now' | 'migrate'>;

  /** `ctx`: the plugin context's clock and its migrations (applied once; after a failure the next call retries). */
  constructor(db: Storage, oracleDid: string, ctx: Pick<PluginContext, 'now' | 'migrate'>) {
    this.db = db;
    this.oracleDid = oracleDid;
    this.ctx = ctx;
    void this.ready().catch(() => {}); // started now; the error reaches every caller through `await this.ready()`
  }

  private ready(): Promise<void> {
    return this.ctx.migrate(CALLS_MIGRATIONS);
  }

  private call(r: CallRow): Call {
    return {
      callId: r.id,
      sessionId: r.session_id,
      userDid: r.user_did,
      oracleDid: r.oracle_did,
      callType: r.call_type,
      callStatus: r.status,
      roomName: r.id,
      agentVoice: r.agent_voice,
      language: r.language,
      createdAt: r.created_at,
      callStartedAt: r.started_at,
      callEndedAt: r.ended_at,
    };
  }

  /** A new pending call with a fresh 32-byte key (hex). */
  async create(
    userDid: string,
    o: { sessionId: string; callType: CallType; agentVoice?: string; language?: string },
  ): Promise<{ call: Call; encryptionKey: string }> {
    await this.ready();
    const id = `call-${randomUUID()}`;
    const key = randomBytes(32).toString('hex');
    const now = new Date(this.ctx.now()).toISOString();
    await this.db.write(() =>
      this.db.run(
        'INSERT INTO calls_calls (id, user_did, oracle_did, session_id, call_type, status, agent_voice, language, encryption_key, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
        [
          id,
          userDid,
          this.oracleDid,
          o.sessionId,
          o.callType,
          'pending',
          o.agentVoice ?? null,
          o.language ?? null,
          key,
          now,
        ],
      ),
    );
    return { call: (await this.get(userDid, id))!, encryptionKey: key };
  }

  /** The caller's call, or undefined (another user's call is not theirs). */
  async get(userDid: string, callId: string): Promise<Call | undefined> {
    const r = await this.row(userDid, callId);
    return r ? this.call(r) : undefined;
  }

  /** The key of a call that has not ended (the agent's side of the encryption). */
  async key(userDid: string, callId: string): Promise<string | undefined> {
    return (await this.row(userDid, callId))?.encryption_key ?? undefined;
  }

  private async row(userDid: string, callId: string): Promise<CallRow | undefined> {
    await this.ready();
    return this.db.get<CallRow>('SELECT * FROM calls_calls WHERE id = ? AND user_did = ? AND oracle_did = ?', [
      callId,
      userDid,
      this.oracleDid,
    ]);
  }

  async list(
    userDid: string,
    o: { sessionId?: string; limit: number; offset: number },
  ): Promise<{ calls: Call[]; total: number }> {
    await this.ready();
    const where = `user_did = ? AND oracle_did = ?${o.sessionId !== undefined ? ' AND session_id = ?' : ''}`;
    const params = [userDid, this.oracleDid, ...(o.sessionId !== undefined ? [o.sessionId] : [])];
    const rows = await this.db.all<CallRow>(
      `SELECT * FROM calls_calls WHERE ${where} ORDER BY created_at DESC, id LIMIT ? OFFSET ?`,
      [...params, o.limit, o.offset],
    );
    const total = await this.db.get<{ n: number | string }>(
      `SELECT COUNT(*) AS n FROM calls_calls WHERE ${where}`,
      params,
    );
    return { calls: rows.map((r) => this.call(r)), total: Number(total?.n ?? 0) };
  }

  /**
   * Moves a call on: to active (its start time: the given one, else the first
   * one recorded, else now) or to ended (its end time; the key is erased).
   * Returns the call as stored after the change.
   */
  async update(
    userDid: string,
    callId: string,
    o: { status?: 'active' | 'ended'; startedAt?: string; endedAt?: string },
  ): Promise<Call | undefined> {
    await this.ready();
    const now = new Date(this.ctx.now()).toISOString();
    await this.db.write(async () => {
      const r = await this.row(userDid, callId);
      if (!r || r.status === 'ended') return;
      const status = o.status ?? r.status;
      const startedAt = o.startedAt ?? r.started_at ?? (status === 'active' ? now : null);
      const ended = status === 'ended';
      await this.db.run(
        'UPDATE calls_calls SET status = ?, started_at = ?, ended_at = ?, encryption_key = ? WHERE id = ?',
        [status, startedAt, ended ? (o.endedAt ?? now) : null, ended ? null : r.encryption_key, callId],
      );
    });
    return this.get(userDid, callId);
  }
}
