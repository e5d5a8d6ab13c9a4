// Preloaded by bench/select.ts (node --import) into both commands it times:
// prints the process's CPU time (user + system, every thread) when the main
// thread exits, so the comparison is also made on a figure that the
// machine's load does not inflate as much as wall time.
import { isMainThread } from 'node:worker_threads';

if (isMainThread) {
  process.on('exit', () => {
    const u = process.cpuUsage();
    process.stderr.write(`\ncpu-usage-ms ${((u.user + u.system) / 1000).toFixed(0)}\n`);
  });
}
