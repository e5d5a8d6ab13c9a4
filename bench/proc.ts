/**
 * What the scale-out benches read of a process from /proc: its user + system
 * CPU time so far (/proc/<pid>/stat, in clock ticks of 10 ms, USER_HZ = 100).
 */
import { readFileSync } from 'node:fs';

/** User + system CPU time of a process so far (or of one of its threads: `tid`), µs; 0 once it is gone. */
export function cpuUsOf(pid: number, tid?: number): number {
  let text: string;
  try {
    text = readFileSync(tid === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${tid}/stat`, 'utf8');
  } catch {
    return 0;
  }
  // the command name (field 2) may hold spaces; the fields after it start at state (field 3)
  const f = text.slice(text.lastIndexOf(') ') + 2).split(' ');
  return (Number(f[11]) + Number(f[12])) * 10_000;
}
