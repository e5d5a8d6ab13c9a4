import { BaseCommand } from '../../cli/base.ts';

export default class DaemonStatus extends BaseCommand {
  static override summary = 'Is the local daemon running? pid, URL, version, uptime (exit 9 when not running).';
  static override enableJsonFlag = false;
  static override examples = ['<%= config.bin %> daemon status', '<%= config.bin %> daemon status --json'];

  async run(): Promise<void> {
    const { flags } = await this.parse(DaemonStatus);
    const { daemonStatus } = await import('../../daemon/lifecycle/control.ts');
    const { status } = await daemonStatus();
    if (flags.json) this.outJson(status);
    else if (status.running) this.out(`running: pid ${status.pid} at ${status.url}, version ${status.version}, ${status.healthy ? `healthy, up ${status.uptimeSeconds}s` : 'NOT answering /health'}`);
    else this.out(`not running${status.stale ? ` (removed a stale discovery file of pid ${status.pid})` : ''}`);
    if (!status.running || !status.healthy) process.exitCode = 9;
  }
}
