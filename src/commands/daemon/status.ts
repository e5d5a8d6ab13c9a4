import { BaseCommand, EXIT_CODES } from '../../cli/base.ts';

export default class DaemonStatus extends BaseCommand {
  static override summary =
    'Is the local daemon running? pid, URL, version, uptime, its default oracle (exit 9 when not running).';
  static override examples = ['<%= config.bin %> daemon status', '<%= config.bin %> daemon status --json'];

  async run(): Promise<void> {
    const { flags } = await this.parse(DaemonStatus);
    const { daemonStatus } = await import('../../cli/daemon/control.ts');
    const { formatDaemonStatus } = await import('../../cli/daemon/print.ts');
    const { status } = await daemonStatus();
    if (flags.json) this.outJson(status);
    else this.out(formatDaemonStatus(status));
    if (!status.running || !status.healthy) process.exitCode = EXIT_CODES.unavailable;
  }
}
