// Preloaded with --import: records every module URL the process resolves into
// the file named by TRACE_IMPORTS_FILE (one per line).
import { registerHooks } from 'node:module';
import { appendFileSync } from 'node:fs';

const file = process.env.TRACE_IMPORTS_FILE;
registerHooks({
  resolve(specifier, context, next) {
    const r = next(specifier, context);
    if (file) appendFileSync(file, r.url + '\n');
    return r;
  },
});
