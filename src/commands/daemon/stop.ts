import { BaseCommand, toOclifFlags } from '../../cli/base.ts';
import { DAEMON_STOP_FLAGS } from '../../cli/daemon/flags.ts';

export default class DaemonStop extends BaseCommand {
  static override summary =
    'Stop the local daemon: SIGTERM (in-flight requests finish), then SIGKILL after the grace period.';
  static override examples = ['<%= config.bin %> daemon stop', '<%= config.bin %> daemon stop --grace 2 --json'];
  static override flags = toOclifFlags(DAEMON_STOP_FLAGS);

  async run(): Promise<void> {
    const { flags } = await this.parse(DaemonStop);
    const { stopDaemon } = await import('../../cli/daemon/control.ts');
    const r = await stopDaemon(process.env, flags.grace * 1000);
    if (flags.json) this.outJson(r);
    else this.out(r.stopped ? `stopped pid ${r.pid}${r.forced ? ' (forced with SIGKILL)' : ''}` : 'not running');
  }
}
