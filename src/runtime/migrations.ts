/**
 * SQLite migrations of the 'runtime' area (src/storage/db.ts): sessions,
 * messages (stored with the ids the stream used), runs and their events (for
 * rejoin), user preferences per room (user × oracle), stored delegations,
 * revoked UCAN CIDs, and the CIDs of invocations already used (replay
 * protection that survives a restart).
 */
import type { Migration } from '../storage/db.ts';

export const RUNTIME_MIGRATIONS: Migration[] = [
  {
    version: 1,
    description: 'sessions, messages, runs (with their event log), preferences, delegations, revocations',
    sql: `
      CREATE TABLE runtime_sessions (
        id TEXT PRIMARY KEY,
        user_did TEXT NOT NULL,
        oracle_did TEXT NOT NULL,
        title TEXT NOT NULL,
        state TEXT NOT NULL DEFAULT '{}',
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
      );
      CREATE INDEX runtime_sessions_user ON runtime_sessions (user_did, oracle_did, updated_at DESC);
      CREATE TABLE runtime_messages (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        id TEXT NOT NULL,
        session_id TEXT NOT NULL REFERENCES runtime_sessions(id) ON DELETE CASCADE,
        type TEXT NOT NULL CHECK (type IN ('human', 'ai')),
        content TEXT NOT NULL,
        tool_calls TEXT,
        reasoning TEXT,
        created_at TEXT NOT NULL,
        UNIQUE (session_id, id)
      );
      CREATE INDEX runtime_messages_session ON runtime_messages (session_id, seq);
      CREATE TABLE runtime_runs (
        id TEXT PRIMARY KEY,
        session_id TEXT NOT NULL REFERENCES runtime_sessions(id) ON DELETE CASCADE,
        user_did TEXT NOT NULL,
        request_id TEXT NOT NULL,
        status TEXT NOT NULL,
        events TEXT,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
      );
      CREATE INDEX runtime_runs_session ON runtime_runs (session_id, created_at DESC);
      CREATE TABLE runtime_preferences (
        user_did TEXT NOT NULL,
        oracle_did TEXT NOT NULL,
        prefs TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        PRIMARY KEY (user_did, oracle_did)
      );
      CREATE TABLE runtime_delegations (
        user_did TEXT NOT NULL,
        oracle_did TEXT NOT NULL,
        cid TEXT NOT NULL,
        raw TEXT NOT NULL,
        expiration INTEGER,
        created_at TEXT NOT NULL,
        PRIMARY KEY (user_did, oracle_did)
      );
      CREATE TABLE runtime_revocations (
        cid TEXT PRIMARY KEY,
        revoked_at TEXT NOT NULL
      );
    `,
  },
  {
    version: 2,
    description: 'used invocation CIDs, remembered until their expiry (replay protection across restarts)',
    sql: `
      CREATE TABLE runtime_used_invocations (
        cid TEXT PRIMARY KEY,
        expires_at INTEGER NOT NULL
      );
      CREATE INDEX runtime_used_invocations_expiry ON runtime_used_invocations (expires_at);
    `,
  },
];
