/**
 * A real Redis (Debian's redis-server) for tests: started on a free loopback
 * port in a temp dir, no persistence to disk needed beyond the process, and
 * stopped (SIGTERM, then SIGKILL) by stop(); kill() and start() serve the
 * fault tests (a Redis that restarts).
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
  /**
   * SIGKILLs the server (a crash; nothing is persisted, so it comes back empty); start() brings it back on the same
   * port.
   */
  kill(): Promise<void>;
  start(): Promise<void>;
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

/** redis-server on port in dir; resolves with the child once it answers PING, undefined when it exits first. */
async function spawnRedis(
  port: number,
  dir: string,
): Promise<{ child: ChildProcess; exited: () => boolean } | undefined> {
  const child: ChildProcess = spawn(
    REDIS_SERVER,
    [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--dir',
      dir,
      '--save',
      '',
      '--appendonly',
      'no',
      '--protected-mode',
      'no',
      '--daemonize',
      'no',
      '--loglevel',
      'warning',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let exited = false;
  child.on('exit', () => (exited = true));
  for (let i = 0; i < 200 && !exited; i++) {
    if (await ping(port)) return { child, exited: () => exited };
    await new Promise((r) => setTimeout(r, 25));
  }
  child.kill('SIGKILL');
  return undefined;
}

export async function startRedis(): Promise<RedisServer> {
  for (let attempt = 0; attempt < 5; attempt++) {
    const dir = mkdtempSync(join(tmpdir(), 'oraclekit-redis-'));
    const port = await freePort();
    let server = await spawnRedis(port, dir);
    if (!server) {
      rmSync(dir, { recursive: true, force: true });
      continue;
    }
    const halt = async (signal: NodeJS.Signals) => {
      const s = server;
      server = undefined;
      if (!s || s.exited()) return;
      const gone = new Promise<void>((r) => s.child.once('exit', () => r()));
      s.child.kill(signal);
      const t = setTimeout(() => s.child.kill('SIGKILL'), 3000);
      await gone;
      clearTimeout(t);
    };
    return {
      url: `redis://127.0.0.1:${port}`,
      port,
      kill: () => halt('SIGKILL'),
      async start() {
        // the port may take a moment to be free again after a kill
        for (let i = 0; i < 40 && !server; i++) {
          server = await spawnRedis(port, dir);
          if (!server) await new Promise((r) => setTimeout(r, 50));
        }
        if (!server) throw new Error(`redis-server did not start again on port ${port}`);
      },
      async stop() {
        await halt('SIGTERM');
        rmSync(dir, { recursive: true, force: true });
      },
    };
  }
  throw new Error(`redis-server did not start (${REDIS_SERVER})`);
}
