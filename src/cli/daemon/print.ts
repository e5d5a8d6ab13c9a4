/** How the daemon commands print the daemon's state for a person (with --json they print the state itself). */
import type { DaemonStatus } from './control.ts';

export function formatDaemonStatus(status: DaemonStatus): string {
  if (!status.running)
    return `not running${status.stale ? ` (removed a stale discovery file of pid ${status.pid})` : ''}`;
  const lines = [
    `running: pid ${status.pid} at ${status.url}, version ${status.version}, ` +
      `${status.healthy ? `healthy, up ${status.uptimeSeconds}s` : 'NOT answering /health'}`,
  ];
  const o = status.oracle;
  if (o) {
    lines.push(
      `oracle: ${o.name} ${o.did} at ${o.url}, model ` +
        `${o.model ?? 'none (set LLM_BASE_URL, LLM_PROVIDER_API_KEY, LLM_MODEL and restart)'}${o.signingKeyLoaded ? '' : ', signing key loading'}`,
    );
    lines.push(
      `plugins: loaded ` +
        `${o.plugins.loaded.join(', ') || '-'}${o.plugins.pending.length ? `; pending ${o.plugins.pending.join(', ')}` : ''}${o.plugins.failed.length ? `; failed ${o.plugins.failed.map((f) => `${f.plugin} (${f.reason})`).join(', ')}` : ''}; excluded ${o.plugins.excluded.length}`,
    );
  } else if (o === null)
    lines.push('oracle: none (disabled in daemon.json, or it failed to boot: see `oraclekit daemon logs`)');
  return lines.join('\n');
}

/** `daemon start` / `restart`: where it listens. */
export function formatStarted(status: DaemonStatus, how: 'started' | 'already running' | 'restarted'): string {
  return how === 'restarted'
    ? `restarted: pid ${status.pid} at ${status.url} (version ${status.version})`
    : `${how}: pid ${status.pid} at ${status.url} (version ${status.version}); logs ${status.logFile}`;
}
