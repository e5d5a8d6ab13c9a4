/**
 * The running oracle's log (pino, JSON lines on stdout at LOG_LEVEL): one
 * line per request that createOracleApp serves (http/request-log.ts: method,
 * path, status, ms), one per failed turn or failed tool call, read from the
 * run's events, so every way a turn ends is seen the same way, and the
 * plugins' own lines (their context's `log`, each carrying `plugin`). The
 * boot lines (`[boot] …`, `[plugin] …`) are not in it: they stay the plain
 * lines of the BootLogger that docs/runtime.md shows.
 *
 * Nothing secret goes in: a path without its query, event messages that the
 * runtime has already redacted (the model key, the mnemonic).
 */
import type { FastifyBaseLogger } from 'fastify';
import { pino } from 'pino';
import type { AnyEvent } from '../lib/protocol/index.ts';
import type { Run } from './run.ts';
import type { LogLevel } from './settings.ts';

/** A pino logger (fastify's own logger type: a pino instance, or a child of one). */
export type RuntimeLog = FastifyBaseLogger;

export function createRuntimeLog(level: LogLevel): RuntimeLog {
  return pino({ level });
}

/**
 * A failed tool call (its `tool_call` event with status error) or a failed turn (its `done` with status failed): warn.
 */
export function logRunEvent(log: RuntimeLog, run: Run, e: AnyEvent): void {
  const ids = { runId: run.runId, sessionId: run.sessionId, requestId: run.requestId };
  if (e.event === 'tool_call' && e.data.status === 'error')
    log.warn({ ...ids, tool: e.data.toolName, error: e.data.error }, 'tool failed');
  else if (e.event === 'done' && e.data.status === 'failed') {
    const err = run.turn.error;
    log.warn({ ...ids, code: err?.code, kind: err?.kind, error: err?.error }, 'turn failed');
  }
}
