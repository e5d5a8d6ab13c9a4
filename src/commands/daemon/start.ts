import { BaseCommand, toOclifFlags } from '../../cli/base.ts';
import { DAEMON_LISTEN_FLAGS } from '../../cli/daemon/flags.ts';

export default class DaemonStart extends BaseCommand {
  static override summary = 'Start the local daemon in the background (127.0.0.1:4781 by default).';
  static override description =
    'Spawns the daemon detached, waits until it answers /health, and prints where it listens. A running daemon of the same version is left alone; one of another version is replaced. Logs go to the state directory (see `daemon logs`).';
  static override examples = [
    '<%= config.bin %> daemon start',
    '<%= config.bin %> daemon start --port 0 --json',
    'ORACLEKIT_DAEMON_PORT=5000 <%= config.bin %> daemon start',
  ];
  static override flags = toOclifFlags({ ...DAEMON_LISTEN_FLAGS });

  async run(): Promise<void> {
    const { flags } = await this.parse(DaemonStart);
    const { daemonStatus, startDaemon, stopDaemon, packageVersion } = await import('../../cli/daemon/control.ts');
    const { formatStarted } = await import('../../cli/daemon/print.ts');
    const { status } = await daemonStatus();
    let already = false;
    let out = status;
    if (status.running && status.healthy && status.version === packageVersion()) already = true;
    else {
      const opts: { port?: number; host?: string } = {};
      if (flags.port !== undefined) opts.port = flags.port;
      if (flags.host !== undefined) opts.host = flags.host;
      const { slowStep } = await import('../../cli/progress.ts');
      await slowStep('starting the local daemon', async () => {
        if (status.running) await stopDaemon(); // another version, or not answering
        return startDaemon(opts);
      });
      out = (await daemonStatus()).status;
    }
    if (flags.json) this.outJson({ ...out, alreadyRunning: already });
    else this.out(formatStarted(out, already ? 'already running' : 'started'));
  }
}
