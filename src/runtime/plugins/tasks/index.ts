/**
 * tasks (runtime.md): scheduled and background tasks — create, list, cancel —
 * on a real Redis queue (TASKS_STORE_URL, redis:// or rediss://). A worker in
 * the runtime runs each due task as an agent turn in the session it was
 * created from, so its result appears in that session. Tasks live in Redis:
 * a restarted runtime (same oracle, same store) runs what is due. Connects in
 * the background at boot (pending → loaded, or → failed when Redis is down).
 */
import { z } from 'zod';
import { definePlugin, defineTool, type PluginContext } from '../../plugin.ts';
import { TaskStore, type Task, type TaskStatus } from './store.ts';
import { TaskWorker } from './worker.ts';

const TasksEnvSchema = z.object({
  TASKS_STORE_URL: z
    .string()
    .trim()
    .refine((v) => {
      try {
        const u = new URL(v);
        return (u.protocol === 'redis:' || u.protocol === 'rediss:') && u.hostname !== '';
      } catch {
        return false;
      }
    }, 'must be a redis:// or rediss:// URL, e.g. redis://127.0.0.1:6379'),
  TASKS_KEY_PREFIX: z
    .string()
    .regex(/^[\w.:-]{1,64}$/)
    .default('oraclekit:tasks'),
  TASKS_POLL_MS: z.coerce.number().int().min(10).max(3_600_000).default(1000),
  TASKS_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(5000),
  TASKS_LEASE_MS: z.coerce
    .number()
    .int()
    .min(1000)
    .max(86_400_000)
    .default(15 * 60_000),
});
type TasksEnv = z.infer<typeof TasksEnvSchema>;

interface Running {
  store: TaskStore;
  worker: TaskWorker;
}
const running = new WeakMap<object, Running>();

function need(ctx: PluginContext<TasksEnv>): Running {
  const r = running.get(ctx);
  if (!r) throw new Error('the task store is not connected yet; try again shortly');
  return r;
}

function view(t: Task) {
  return {
    taskId: t.id,
    title: t.title,
    prompt: t.prompt,
    status: t.status,
    runAt: new Date(t.runAt).toISOString(),
    ...(t.everySeconds ? { everySeconds: t.everySeconds } : {}),
    sessionId: t.sessionId,
    runs: t.runs,
    ...(t.lastRunAt ? { lastRunAt: t.lastRunAt } : {}),
    ...(t.lastResult ? { lastResult: t.lastResult.slice(0, 500) } : {}),
    ...(t.lastError ? { lastError: t.lastError } : {}),
  };
}

const STATUSES = ['scheduled', 'running', 'done', 'failed', 'cancelled'] as const satisfies readonly TaskStatus[];

export const tasksPlugin = definePlugin<TasksEnv>({
  name: 'tasks',
  version: '1.0.0',
  manifest: {
    title: 'Scheduled tasks',
    summary:
      'Run an instruction later, or repeatedly, in the background; the result is posted into this conversation. ' +
      'Create, list and cancel tasks.',
    whenToUse: [
      'the user asks to do something later, at a time, or every N minutes/hours (reminders, recurring reports, ' +
        'follow-ups)',
      'the user asks which tasks are scheduled, or to cancel one',
    ],
    whenNotToUse: ['something to do right now in this turn'],
    visibility: 'on-demand',
    stability: 'beta',
    category: 'automation',
    defaultState: 'on',
    dependsOn: [],
  },
  requiredEnv: ['TASKS_STORE_URL'],
  envSchema: TasksEnvSchema,
  start: async (ctx) => {
    const store = new TaskStore({
      url: ctx.env.TASKS_STORE_URL,
      prefix: `${ctx.env.TASKS_KEY_PREFIX}:${ctx.store.oracleDid || 'oracle'}`,
      timeoutMs: ctx.env.TASKS_TIMEOUT_MS,
      now: ctx.now,
    });
    await store.connect();
    const worker = new TaskWorker({
      store,
      host: ctx.host,
      pollMs: ctx.env.TASKS_POLL_MS,
      leaseMs: ctx.env.TASKS_LEASE_MS,
      log: ctx.log,
      now: ctx.now,
    });
    running.set(ctx, { store, worker });
    worker.start();
  },
  stop: async (ctx) => {
    const r = running.get(ctx);
    if (!r) return;
    running.delete(ctx);
    await r.worker.stop();
    await r.store.close();
  },
  tools: (ctx) => ({
    create_task: defineTool({
      description:
        'Schedule an instruction to run later in the background, once or repeatedly; when it runs, you receive the ' +
        'prompt as a message in this conversation and your answer is posted here. ' +
        'Give delaySeconds (from now) or runAt (ISO 8601 with offset), not both; neither means as soon as ' +
        'possible. everySeconds (≥ 10) repeats it.',
      inputSchema: z.object({
        title: z.string().min(1).max(120).describe('short name, e.g. "Daily stove report"'),
        prompt: z
          .string()
          .min(1)
          .max(4000)
          .describe('the instruction to carry out when the task runs, written for yourself'),
        delaySeconds: z
          .number()
          .int()
          .min(0)
          .max(366 * 86_400)
          .optional()
          .describe('run this many seconds from now'),
        runAt: z.string().optional().describe('run at this time, ISO 8601, e.g. 2026-01-31T09:00:00+03:00'),
        everySeconds: z
          .number()
          .int()
          .min(10)
          .max(366 * 86_400)
          .optional()
          .describe('repeat every N seconds after each run'),
      }),
      execute: async (input, turn) => {
        const { store } = need(ctx);
        if (input.delaySeconds !== undefined && input.runAt !== undefined)
          throw new Error('give delaySeconds or runAt, not both');
        let runAt = ctx.now() + (input.delaySeconds ?? 0) * 1000;
        if (input.runAt !== undefined) {
          const t = Date.parse(input.runAt);
          if (Number.isNaN(t)) throw new Error(`runAt ${JSON.stringify(input.runAt)} is not an ISO 8601 date-time`);
          if (t < ctx.now() - 60_000) throw new Error(`runAt ${input.runAt} is in the past`);
          runAt = t;
        }
        const task = await store.create({
          userDid: turn.userDid,
          sessionId: turn.sessionId,
          title: input.title,
          prompt: input.prompt,
          runAt,
          ...(input.everySeconds ? { everySeconds: input.everySeconds } : {}),
        });
        return { ok: true, task: view(task) };
      },
    }),
    list_tasks: defineTool({
      description: "List the user's scheduled and past tasks (all of their sessions with this oracle), earliest first.",
      inputSchema: z.object({ status: z.enum(STATUSES).optional().describe('only tasks with this status') }),
      execute: async (input, turn) => {
        const { store } = need(ctx);
        const all = await store.listForUser(turn.userDid);
        return { tasks: all.filter((t) => !input.status || t.status === input.status).map(view) };
      },
    }),
    cancel_task: defineTool({
      description:
        "Cancel one of the user's tasks by its taskId (from create_task or list_tasks); a repeating task stops " +
        'repeating.',
      inputSchema: z.object({ taskId: z.string().min(1).describe('e.g. "task-1a2b3c4d"') }),
      execute: async (input, turn) => {
        const { store, worker } = need(ctx);
        const t = await store.get(input.taskId);
        if (!t || t.userDid !== turn.userDid)
          throw new Error(`no task ${input.taskId}; call list_tasks to see the task ids`);
        if (t.status === 'done' || t.status === 'cancelled' || t.status === 'failed')
          throw new Error(`task ${input.taskId} is already ${t.status}`);
        const c = await store.cancel(t);
        worker.abortLocal(t.id);
        return { ok: true, task: view(c) };
      },
    }),
  }),
});
