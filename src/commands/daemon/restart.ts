import { BaseCommand, toOclifFlags } from '../../cli/base.ts';
import { DAEMON_LISTEN_FLAGS } from '../../cli/daemon/flags.ts';

export default class DaemonRestart extends BaseCommand {
  static override summary = 'Stop the local daemon (if running) and start it again.';
  static override examples = ['<%= config.bin %> daemon restart', '<%= config.bin %> daemon restart --port 4782'];
  static override flags = toOclifFlags({ ...DAEMON_LISTEN_FLAGS });

  async run(): Promise<void> {
    const { flags } = await this.parse(DaemonRestart);
    const { daemonStatus, startDaemon, stopDaemon } = await import('../../cli/daemon/control.ts');
    const { formatStarted } = await import('../../cli/daemon/print.ts');
    const opts: { port?: number; host?: string } = {};
    if (flags.port !== undefined) opts.port = flags.port;
    if (flags.host !== undefined) opts.host = flags.host;
    const { slowStep } = await import('../../cli/progress.ts');
    await slowStep('restarting the local daemon', async () => {
      await stopDaemon();
      return startDaemon(opts);
    });
    const { status } = await daemonStatus();
    if (flags.json) this.outJson(status);
    else this.out(formatStarted(status, 'restarted'));
  }
}
