/** Where a command's output goes (the oclif command, or the fast path's stdout). */
export interface Io {
  out(text: string): void;
  outJson(value: unknown): void;
}

export const stdoutIo: Io = {
  out(text) {
    process.stdout.write(text.endsWith('\n') ? text : text + '\n');
  },
  outJson(value) {
    process.stdout.write(JSON.stringify(value, null, 2) + '\n');
  },
};
