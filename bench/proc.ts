/**
 * What the benches read of a process from /proc: its user + system CPU time
 * and its minor page faults so far (/proc/<pid>/stat; CPU in clock ticks of
 * 10 ms, USER_HZ = 100). One reader for every bench that accounts a daemon's
 * cost per request. (registry-get-cpu.ts reads schedstat instead, in ns, for
 * the reason its header gives.)
 */
import { readFileSync } from 'node:fs';

export interface ProcStat {
  /** User + system CPU time, µs. */
  cpuUs: number;
  /** Minor page faults. */
  faults: number;
}

/** The process's CPU time and minor page faults so far; zeros once it is gone. */
export function procStat(pid: number): ProcStat {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return { cpuUs: 0, faults: 0 };
  }
  // the command name (field 2) may hold spaces; the fields after it start at state (field 3)
  const f = text.slice(text.lastIndexOf(') ') + 2).split(' ');
  return { cpuUs: (Number(f[11]) + Number(f[12])) * 10_000, faults: Number(f[7]) };
}

/** CPU µs (rounded) and page faults (to 0.01) per request between two readings, over `requests` requests. */
export function perRequest(before: ProcStat, after: ProcStat, requests: number): ProcStat {
  const n = Math.max(1, requests);
  return {
    cpuUs: Math.round((after.cpuUs - before.cpuUs) / n),
    faults: Math.round(((after.faults - before.faults) / n) * 100) / 100,
  };
}

/** User + system CPU time of a process so far, µs; 0 once it is gone. */
export function cpuUsOf(pid: number): number {
  return procStat(pid).cpuUs;
}
