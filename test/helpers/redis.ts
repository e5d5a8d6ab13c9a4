/**
 * A real Redis (Debian's redis-server) for tests: started on a free loopback
 * port in a temp dir, no persistence to disk needed beyond the process, and
 * stopped (SIGTERM, then SIGKILL) by stop().
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './loopback.ts';

const REDIS_SERVER = process.env.REDIS_SERVER_BIN ?? '/usr/bin/redis-server';

export interface RedisServer {
  url: string;
  port: number;
  stop(): Promise<void>;
}

function ping(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const c = createConnection({ host: '127.0.0.1', port });
    let buf = '';
    c.setTimeout(500, () => (c.destroy(), resolve(false)));
    c.on('error', () => resolve(false));
    c.on('connect', () => c.write('PING\r\n'));
    c.on('data', (d) => {
      buf += d.toString();
      if (buf.includes('\r\n')) {
        c.destroy();
        resolve(buf.startsWith('+PONG'));
      }
    });
  });
}

export async function startRedis(): Promise<RedisServer> {
  for (let attempt = 0; attempt < 5; attempt++) {
    const dir = mkdtempSync(join(tmpdir(), 'oraclekit-redis-'));
    const port = await freePort();
    const child: ChildProcess = spawn(REDIS_SERVER, ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'no', '--protected-mode', 'no', '--daemonize', 'no', '--loglevel', 'warning'], { stdio: ['ignore', 'ignore', 'pipe'] });
    let exited = false;
    child.on('exit', () => (exited = true));
    for (let i = 0; i < 200 && !exited; i++) {
      if (await ping(port)) {
        return {
          url: `redis://127.0.0.1:${port}`,
          port,
          async stop() {
            if (!exited) {
              const gone = new Promise<void>((r) => child.once('exit', () => r()));
              child.kill('SIGTERM');
              const t = setTimeout(() => child.kill('SIGKILL'), 3000);
              await gone;
              clearTimeout(t);
            }
            rmSync(dir, { recursive: true, force: true });
          },
        };
      }
      await new Promise((r) => setTimeout(r, 25));
    }
    child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
  throw new Error(`redis-server did not start (${REDIS_SERVER})`);
}
