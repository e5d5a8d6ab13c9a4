/**
 * sandbox (runtime.md): an MCP client (Streamable HTTP) to a code sandbox
 * (SANDBOX_MCP_URL): run code, read and write files, with every tool the
 * server lists (SANDBOX_MCP_TOOLS narrows them). Calls carry the session id,
 * so a sandbox server can keep one workspace per conversation. On-demand.
 */
import { createMcpPlugin } from '../_mcp/plugin.ts';

export const sandboxPlugin = createMcpPlugin({
  name: 'sandbox',
  prefix: 'SANDBOX',
  defaultTimeoutMs: 60_000,
  manifest: {
    title: 'Code sandbox',
    summary:
      'Run code and read and write files in an isolated sandbox (calculations, data processing, generated files).',
    whenToUse: [
      'a calculation or data transformation is easier to do by running code',
      'the user asks to create, read or change a file in the sandbox',
    ],
    whenNotToUse: [
      'simple arithmetic you can do reliably',
      'sample sizes (the sampling capability computes them exactly)',
    ],
    visibility: 'on-demand',
    stability: 'beta',
    category: 'tools',
    defaultState: 'on',
    dependsOn: [],
  },
  headers: (turn) => ({ 'x-session-id': turn.sessionId, 'x-user-did': turn.userDid }),
  describePrefix: '[sandbox] ',
});
