import { BaseCommand, toOclifFlags } from '../../cli/base.ts';

export default class DaemonLogs extends BaseCommand {
  static override summary = "Show the daemon's log (JSON lines from pino); -f follows it.";
  static override enableJsonFlag = false;
  static override examples = ['<%= config.bin %> daemon logs', '<%= config.bin %> daemon logs -n 100', '<%= config.bin %> daemon logs -f'];
  static override flags = toOclifFlags({
    follow: { type: 'boolean', char: 'f', description: 'Keep printing new lines (Ctrl-C to stop).', default: false },
    lines: { type: 'integer', char: 'n', description: 'How many of the last lines to show.', default: 50, min: 0 },
  });

  async run(): Promise<void> {
    const { flags } = await this.parse(DaemonLogs);
    const { logPath } = await import('../../cli/daemon/control.ts');
    const { existsSync, readFileSync, statSync, openSync, readSync, closeSync, watchFile } = await import('node:fs');
    const path = logPath();
    if (!existsSync(path)) {
      if (!flags.follow) {
        this.out(`no log yet (${path})`);
        return;
      }
    } else {
      const lines = readFileSync(path, 'utf8').split('\n');
      if (lines.at(-1) === '') lines.pop();
      const tail = flags.lines === 0 ? [] : lines.slice(-flags.lines);
      if (tail.length) process.stdout.write(tail.join('\n') + '\n');
    }
    if (!flags.follow) return;
    let pos = existsSync(path) ? statSync(path).size : 0;
    await new Promise<void>(() => {
      watchFile(path, { interval: 250 }, (cur) => {
        if (cur.size < pos) pos = 0; // truncated
        if (cur.size === pos) return;
        const fd = openSync(path, 'r');
        const buf = Buffer.alloc(cur.size - pos);
        readSync(fd, buf, 0, buf.length, pos);
        closeSync(fd);
        pos = cur.size;
        process.stdout.write(buf);
      });
    });
  }
}
