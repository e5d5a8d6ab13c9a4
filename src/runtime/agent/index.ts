/**
 * The agent turn, in small files on the model of the AI SDK's generate-text/:
 * run-turn (the turn), model-stream (the model loop a turn and a sub-agent
 * share), sub-agent (a plugin's sub-agent as a tool), tool-set and
 * execute-tool (the tools and one call),
 * hooks (the one plugin-hook loop), watchdog (stalls), run-limits (the bounds
 * of a run: duration, output, event log), parts-to-events (the
 * model stream as protocol events), classify-error (error events),
 * history-rows (what the turn stores), bounded-lines (the model provider's
 * reply, line by line bounded), rehearse (the model path run once before a
 * user's turn needs it), early-model (a turn's request sent before the turn
 * is confirmed).
 */
export { runTurn, EarlyTurn } from './run-turn.ts';
export { rehearseTurn } from './rehearse.ts';
export type { AgentDeps, TurnInput } from './types.ts';
export type { RunLimits } from './run-limits.ts';
export { runHook, type ActivePlugin } from './hooks.ts';
export { classifyError } from './classify-error.ts';
export { lineBoundedFetch } from './bounded-lines.ts';
