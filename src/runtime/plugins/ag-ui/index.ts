/**
 * ag-ui (runtime.md): the client's `agActions[]` (POST /messages body) become
 * agent actions. A call goes out as socket.io `action_call` {sessionId,
 * requestId, toolCallId, toolName, args}; the client answers
 * `action_call_result` {toolCallId, sessionId, result}; no answer within
 * AG_UI_ACTION_TIMEOUT_MS fails the action cleanly. The run's SSE stream
 * carries `action_call` events (isRunning, then done or error), and an
 * action declared with hasRender also emits the wrapped `render_component`
 * socket event {componentName, args, status} so the client can draw it.
 */
import { z } from 'zod';
import { definePlugin, type TurnContext } from '../../plugin.ts';
import { bridgeTools, EnvTimeout } from '../portal/bridge.ts';

const AgUiEnvSchema = z.object({ AG_UI_ACTION_TIMEOUT_MS: EnvTimeout(30_000) });
type AgUiEnv = z.infer<typeof AgUiEnvSchema>;

export const agUiPlugin = definePlugin<AgUiEnv>({
  name: 'ag-ui',
  version: '1.0.0',
  manifest: {
    title: 'App actions (AG-UI)',
    summary:
      "Actions and UI components that the user's app declares for this conversation (e.g. open a view, render a chart); they run in the client.",
    whenToUse: ['the user asks the app to do or show something that one of its declared actions does'],
    whenNotToUse: ['plain answers that need no action in the app'],
    visibility: 'on-demand',
    stability: 'beta',
    category: 'client',
    defaultState: 'on',
    dependsOn: [],
  },
  envSchema: AgUiEnvSchema,
  turnTools: (turn, ctx) => {
    const renders = new Set((turn.agActions ?? []).filter((a) => a.hasRender).map((a) => a.name));
    const render = (t: TurnContext, c: { toolCallId: string; toolName: string; args: unknown }, status: string) => {
      if (!renders.has(c.toolName)) return;
      ctx.host.emitToSession(t.sessionId, 'render_component', {
        eventName: 'render_component',
        payload: {
          sessionId: t.sessionId,
          requestId: t.requestId,
          eventId: c.toolCallId,
          componentName: c.toolName,
          args: c.args,
          status,
        },
      });
    };
    /** The run's action_call event of a call in this state (with its result at the end), and its component's render. */
    const emit = (
      t: TurnContext,
      c: { toolCallId: string; toolName: string; args: unknown },
      status: 'isRunning' | 'done' | 'error',
      result: { error?: string } | { output?: unknown },
    ) => {
      ctx.host.emitRunEvent(t.sessionId, {
        event: 'action_call',
        data: {
          sessionId: t.sessionId,
          requestId: t.requestId,
          toolCallId: c.toolCallId,
          toolName: c.toolName,
          status,
          ...result,
        },
      });
      render(t, c, status);
    };
    return bridgeTools(turn.agActions, {
      outEvent: 'action_call',
      what: 'action',
      timeoutMs: ctx.env.AG_UI_ACTION_TIMEOUT_MS,
      host: ctx.host,
      onStart: (t, c) => emit(t, c, 'isRunning', {}),
      onEnd: (t, c) => emit(t, c, c.error ? 'error' : 'done', c.error ? { error: c.error } : { output: c.output }),
    });
  },
  middleware: {
    beforeModel: (turn) => {
      const names = (turn.agActions ?? []).map((a) => a.name);
      if (names.length === 0) return;
      return `The user's app declares actions for this turn: ${names.join(', ')}. They belong to the 'ag-ui' capability: call load_capability(['ag-ui']) once, then call them like any tool; they run in the app.`;
    },
  },
});
