/**
 * node:sqlite, loaded without the ExperimentalWarning Node 22 writes on stderr when the module is first loaded (a
 * line before the CLI's output, the daemon's log and a scaffold's boot lines; Node 24 prints none). Only that
 * warning, only while loading: every other warning goes through.
 */
import type * as NodeSqlite from 'node:sqlite';

type EmitWarning = (warning: string | Error, ...rest: unknown[]) => void;

export async function loadSqlite(): Promise<typeof NodeSqlite> {
  const emit = process.emitWarning as EmitWarning;
  const filtered: EmitWarning = (warning, ...rest) => {
    const type = typeof rest[0] === 'string' ? rest[0] : (rest[0] as { type?: string } | undefined)?.type;
    if (type === 'ExperimentalWarning' && /^SQLite /.test(String(warning))) return;
    emit.call(process, warning, ...rest);
  };
  process.emitWarning = filtered as typeof process.emitWarning;
  try {
    return await import('node:sqlite');
  } finally {
    process.emitWarning = emit as typeof process.emitWarning;
  }
}
