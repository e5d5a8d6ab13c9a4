/**
 * The plugin host: the resolved plugins with their contexts, their tools (sub-agents among them), their background
 * start and their stop, the error table they declare merged with the runtime's, and the services the runtime hands
 * them (`PluginHost`, PluginContext.host): they raise events and start turns, never call a transport.
 */
import type { ErrorTable } from '../lib/errors.ts';
import { RUNTIME_ERRORS } from '../lib/protocol/errors.ts';
import { messageIds } from '../lib/protocol/messages.ts';
import type { AgentDeps } from './agent/index.ts';
import { subAgentTool, subAgentToolName } from './agent/sub-agent.ts';
import { BootError, type BootLogger, type PluginStatusTracker } from './boot.ts';
import type { AnyPluginTool, OraclePlugin, PluginContext, PluginHost } from './plugin.ts';
import type { RealtimeHub } from './realtime.ts';
import type { RunManager } from './runs.ts';
import type { RuntimeStore } from './store.ts';

type AnyPlugin = OraclePlugin<unknown>;
export interface HostedPlugin {
  plugin: AnyPlugin;
  ctx: PluginContext<unknown>;
}

export class PluginSet {
  /** Each plugin's tools by plugin name, its sub-agents as tools among them. */
  readonly tools = new Map<string, Record<string, AnyPluginTool>>();
  private readonly resolved: HostedPlugin[];
  readonly tracker: PluginStatusTracker;

  constructor(resolved: HostedPlugin[], tracker: PluginStatusTracker) {
    this.resolved = resolved;
    this.tracker = tracker;
  }

  /** Collects each plugin's tools; a sub-agent runs on the agent's deps with its own time-out. */
  collectTools(agentDeps: () => AgentDeps, subAgentTimeoutMs: number): void {
    for (const { plugin, ctx } of this.resolved) {
      const tools = plugin.tools?.(ctx) ?? {};
      for (const sa of plugin.subAgents ?? [])
        tools[subAgentToolName(sa.name)] = subAgentTool(sa, plugin, tools, agentDeps, subAgentTimeoutMs);
      this.tools.set(plugin.name, tools);
    }
  }

  /** Plugins loaded now (background ones once settled as loaded). */
  active(): HostedPlugin[] {
    return this.resolved.filter(({ plugin }) => this.tracker.isActive(plugin.name));
  }

  /** All resolved plugins (routes are registered for pending ones too). */
  all(): HostedPlugin[] {
    return this.resolved;
  }

  /** Starts the plugins that have a `start` in the background, each within its time-out. */
  start(log: BootLogger, timeoutMs: number): void {
    this.tracker.startBackground(
      this.resolved
        .filter(({ plugin }) => plugin.start)
        .map(({ plugin, ctx }) => ({ name: plugin.name, start: () => plugin.start!(ctx), timeoutMs })),
      log,
    );
  }

  /** Stops the plugins in parallel (MCP sessions, transports, workers), at most 2 s in all. */
  async stop(onError: (e: unknown) => void): Promise<void> {
    const stops = this.resolved
      .filter(({ plugin }) => plugin.stop)
      .map(({ plugin, ctx }) =>
        Promise.resolve()
          .then(() => plugin.stop!(ctx))
          .catch(onError),
      );
    await Promise.race([Promise.all(stops), new Promise((r) => setTimeout(r, 2000).unref())]);
  }
}

export interface PluginHostDeps {
  store: RuntimeStore;
  realtime: RealtimeHub;
  runs: RunManager;
  startTurn: PluginHost['startTurn'];
  preemptTurn: PluginHost['preemptTurn'];
  prepareModel: PluginHost['prepareModel'];
  /** Counts a use against the user's turn limit, then runs the turn gates (turn-admission.ts). */
  admitTurn: (req: Parameters<PluginHost['gateTurn']>[0]) => Promise<unknown>;
  verifyPayment: PluginHost['verifyPayment'];
}

/** The runtime services handed to plugins (PluginContext.host). */
export function createPluginHost(d: PluginHostDeps): PluginHost {
  return {
    startTurn: d.startTurn,
    preemptTurn: d.preemptTurn,
    prepareModel: d.prepareModel,
    postMessage: async (sessionId, msg) => {
      const id = msg.id ?? messageIds.posted();
      await d.store.addMessages(sessionId, [{ id, type: 'ai', content: msg.content }]);
      await d.store.touchSession(sessionId);
      d.realtime.emit(sessionId, 'message_cache_invalidation', {
        eventName: 'message_cache_invalidation',
        payload: { sessionId, requestId: id, eventId: id, reason: 'message posted' },
      });
      return { id };
    },
    emitToSession: (sessionId, event, payload) => d.realtime.emit(sessionId, event, payload),
    awaitClientResult: (sessionId, toolCallId, timeoutMs) => d.realtime.awaitResult(sessionId, toolCallId, timeoutMs),
    emitRunEvent: (sessionId, e) => {
      const run = d.runs.active(sessionId);
      if (!run || run.finished) return false;
      run.emit(e);
      return true;
    },
    // a use that costs like a turn (a call) counts against the per-user turn rate like one (admitTurn takes the slot)
    gateTurn: async (req) => void (await d.admitTurn(req)),
    verifyPayment: d.verifyPayment,
  };
}

/**
 * The shared runtime codes plus each plugin's own (`errors`): a plugin may
 * not give a code another meaning (another status than the shared table's or
 * another plugin's), which would make a code ambiguous on the wire.
 */
export function mergeErrorTables(plugins: { name: string; errors?: ErrorTable }[]): ErrorTable {
  const merged: ErrorTable = { ...RUNTIME_ERRORS };
  const owner = new Map<string, string>();
  for (const p of plugins) {
    for (const [code, e] of Object.entries(p.errors ?? {})) {
      const prev = merged[code];
      if (prev && prev.status !== e.status) {
        const by = owner.get(code);
        throw new BootError(
          `[boot-error] Plugin '${p.name}' declares error code '${code}' with status ${e.status}, but ${by ? `plugin '${by}'` : 'the runtime'} declares it with status ${prev.status}. Rename the plugin's code`,
        );
      }
      if (!prev) {
        merged[code] = e;
        owner.set(code, p.name);
      }
    }
  }
  return merged;
}
