import { BaseCommand, toOclifFlags } from '../../cli/base.ts';
import { DAEMON_LOGS_FLAGS } from '../../cli/daemon/flags.ts';

export default class DaemonLogs extends BaseCommand {
  static override summary = "Show the daemon's log (JSON lines from pino); -f follows it.";
  static override examples = [
    '<%= config.bin %> daemon logs',
    '<%= config.bin %> daemon logs -n 100',
    '<%= config.bin %> daemon logs -f',
  ];
  static override flags = toOclifFlags(DAEMON_LOGS_FLAGS);

  async run(): Promise<void> {
    const { flags } = await this.parse(DaemonLogs);
    const { showLogs } = await import('../../cli/daemon/logs.ts');
    await showLogs({ lines: flags.lines, follow: flags.follow });
  }
}
