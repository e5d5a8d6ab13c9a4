// @ts-check
/**
 * The layer rule of docs/architecture.md: imports point down.
 *
 *   commands → cli → ui → client → lib
 *   daemon → runtime → storage → lib
 *   index.ts / testing.ts (package entries) → runtime, client, lib
 *   plugin.ts (the entry oraclekit/plugin) → runtime, storage, lib
 *   calls (the package @oraclekit/calls) → only itself (the runtime by the package name oraclekit/plugin)
 *
 * A file may import its own layer and the layers listed for it; anything else
 * (an upward or sideways import, e.g. the CLI reaching into the daemon, or
 * the runtime into the daemon) is an error. The CLI controls the daemon as a
 * process (src/cli/daemon/control.ts spawns dist/daemon/main.js), never by import.
 */
import { dirname, relative, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '..');

/** @type {Record<string, string[]>} layer → the layers it may import */
export const ALLOWED = {
  commands: ['cli'],
  cli: ['ui', 'client', 'lib'],
  ui: ['client', 'lib'],
  client: ['lib'],
  daemon: ['runtime', 'storage', 'lib'],
  runtime: ['storage', 'lib'],
  storage: ['lib'],
  lib: [],
  // the package @oraclekit/calls: it reaches the runtime only through the package entry oraclekit/plugin
  calls: [],
  'index.ts': ['runtime', 'client', 'lib'],
  'plugin.ts': ['runtime', 'storage', 'lib'],
  'testing.ts': ['runtime', 'client', 'lib'],
};

/** The layer of a path relative to the repository root, or undefined outside src/. */
function layerOf(/** @type {string} */ rel) {
  const parts = rel.split('/');
  if (parts[0] !== 'src' || parts.length < 2) return undefined;
  return parts[1];
}

/** @type {import('eslint').Rule.RuleModule} */
const rule = {
  meta: {
    type: 'problem',
    docs: { description: 'imports point down the layers of docs/architecture.md' },
    schema: [],
    messages: {
      upward:
        "{{from}} may not import {{to}} ('{{spec}}'): {{from}} may import {{allowed}} (docs/architecture.md, 'Rules of the layout')",
      unknown: '{{file}} is in no known layer of src/ (add it to eslint-rules/layers.js and docs/architecture.md)',
    },
  },
  create(context) {
    const file = relative(ROOT, context.filename);
    const from = layerOf(file);
    if (!from) return {};
    const allowed = ALLOWED[from];
    if (!allowed) {
      return {
        Program(node) {
          context.report({ node, messageId: 'unknown', data: { file } });
        },
      };
    }
    /** @param {any} node */
    function check(node) {
      const source = node.source;
      if (!source || source.type !== 'Literal' || typeof source.value !== 'string') return;
      const spec = source.value;
      if (!spec.startsWith('.')) return;
      const target = relative(ROOT, resolve(dirname(context.filename), spec));
      const to = layerOf(target);
      if (!to || to === from || allowed.includes(to)) return;
      context.report({
        node,
        messageId: 'upward',
        data: { from, to, spec, allowed: allowed.length ? allowed.join(', ') : 'only its own modules' },
      });
    }
    return {
      ImportDeclaration: check,
      ExportNamedDeclaration: check,
      ExportAllDeclaration: check,
      ImportExpression: check,
    };
  },
};

export default { rules: { layers: rule } };
