import { BaseCommand } from '../../cli/base.ts';

export default class DaemonStatus extends BaseCommand {
  static override summary = 'Is the local daemon running? pid, URL, version, uptime, its default oracle (exit 9 when not running).';
  static override enableJsonFlag = false;
  static override examples = ['<%= config.bin %> daemon status', '<%= config.bin %> daemon status --json'];

  async run(): Promise<void> {
    const { flags } = await this.parse(DaemonStatus);
    const { daemonStatus } = await import('../../cli/daemon/control.ts');
    const { status } = await daemonStatus();
    if (flags.json) this.outJson(status);
    else if (status.running) {
      this.out(`running: pid ${status.pid} at ${status.url}, version ${status.version}, ${status.healthy ? `healthy, up ${status.uptimeSeconds}s` : 'NOT answering /health'}`);
      const o = status.oracle;
      if (o) {
        this.out(`oracle: ${o.name} ${o.did} at ${o.url}, model ${o.model ?? 'none (set LLM_BASE_URL, LLM_PROVIDER_API_KEY, LLM_MODEL and restart)'}${o.signingKeyLoaded ? '' : ', signing key loading'}`);
        this.out(`plugins: loaded ${o.plugins.loaded.join(', ') || '-'}${o.plugins.pending.length ? `; pending ${o.plugins.pending.join(', ')}` : ''}${o.plugins.failed.length ? `; failed ${o.plugins.failed.map((f) => `${f.plugin} (${f.reason})`).join(', ')}` : ''}; excluded ${o.plugins.excluded.length}`);
      } else if (o === null) this.out('oracle: none (disabled in daemon.json, or it failed to boot: see `oraclekit daemon logs`)');
    }
    else this.out(`not running${status.stale ? ` (removed a stale discovery file of pid ${status.pid})` : ''}`);
    if (!status.running || !status.healthy) process.exitCode = 9;
  }
}
