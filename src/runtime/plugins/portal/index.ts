/**
 * portal (runtime.md): the client's `tools[]` (POST /messages body) become
 * agent tools run in the browser. A call goes out as socket.io
 * `browser_tool_call` {sessionId, requestId, toolCallId, toolName, args} to
 * the session's room; the client answers `tool_result` {toolCallId,
 * sessionId, result, error?}; no answer within PORTAL_TOOL_TIMEOUT_MS fails
 * the tool call cleanly. On-demand: load_capability(['portal']) first.
 */
import { z } from 'zod';
import { definePlugin } from '../../plugin.ts';
import { bridgeTools, EnvTimeout } from './bridge.ts';

const PortalEnvSchema = z.object({ PORTAL_TOOL_TIMEOUT_MS: EnvTimeout(30_000) });
type PortalEnv = z.infer<typeof PortalEnvSchema>;

export const portalPlugin = definePlugin<PortalEnv>({
  name: 'portal',
  version: '1.0.0',
  manifest: {
    title: 'Browser tools (portal)',
    summary: "Tools that the user's own app (the browser client) offers for this conversation; they run in the client.",
    whenToUse: [
      "the user asks for something one of the client's browser tools does (e.g. read the page, fill a form, show something in the app)",
    ],
    whenNotToUse: ['anything a server-side capability already does'],
    visibility: 'on-demand',
    stability: 'beta',
    category: 'client',
    defaultState: 'on',
    dependsOn: [],
  },
  envSchema: PortalEnvSchema,
  turnTools: (turn, ctx) =>
    bridgeTools(turn.clientTools, {
      outEvent: 'browser_tool_call',
      what: 'browser tool',
      timeoutMs: ctx.env.PORTAL_TOOL_TIMEOUT_MS,
      host: ctx.host,
    }),
  middleware: {
    beforeModel: (turn) => {
      const names = (turn.clientTools ?? []).map((t) => t.name);
      if (names.length === 0) return;
      return `The user's app offers browser tools for this turn: ${names.join(', ')}. They belong to the 'portal' capability: call load_capability(['portal']) once, then call them like any tool; they run in the user's browser.`;
    },
  },
});
