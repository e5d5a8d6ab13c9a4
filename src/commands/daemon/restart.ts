import { Flags } from '@oclif/core';
import { BaseCommand } from '../../cli/base.ts';

export default class DaemonRestart extends BaseCommand {
  static override summary = 'Stop the local daemon (if running) and start it again.';
  static override enableJsonFlag = false;
  static override examples = ['<%= config.bin %> daemon restart', '<%= config.bin %> daemon restart --port 4782'];
  static override flags = {
    port: Flags.integer({ description: 'Port to listen on (0 = any free port). Env ORACLEKIT_DAEMON_PORT; default 4781.', min: 0, max: 65535 }),
    host: Flags.string({ description: 'Address to bind (default 127.0.0.1).' }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(DaemonRestart);
    const { daemonStatus, startDaemon, stopDaemon } = await import('../../cli/daemon/control.ts');
    await stopDaemon();
    const opts: { port?: number; host?: string } = {};
    if (flags.port !== undefined) opts.port = flags.port;
    if (flags.host !== undefined) opts.host = flags.host;
    await startDaemon(opts);
    const { status } = await daemonStatus();
    if (flags.json) this.outJson(status);
    else this.out(`restarted: pid ${status.pid} at ${status.url} (version ${status.version})`);
  }
}
