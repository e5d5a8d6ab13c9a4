/**
 * A tool that throws: the model reads the error's message, as the plugin wrote it, without the class name the AI
 * SDK's String(error) would put in front ("OracleKitError: …", "Error: …"); the user's tool_call event says the same.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createOracleApp } from '../../../../src/runtime/app.ts';
import { definePlugin, defineTool, pluginErrorFactory } from '../../../../src/runtime/plugin.ts';
import { callTool, lastToolResult, say, scriptedModel } from '../../../../src/testing.ts';

const DICE_ERRORS = { too_many_sides: { status: 400, when: 'a die with more sides than allowed' } } as const;
const diceError = pluginErrorFactory(DICE_ERRORS);

const dice = definePlugin({
  name: 'dice',
  version: '0.1.0',
  manifest: {
    title: 'Dice',
    summary: 'Rolls dice.',
    whenToUse: ['the user wants a roll'],
    visibility: 'always',
    stability: 'stable',
    category: 'games',
    defaultState: 'on',
    dependsOn: [],
  },
  errors: DICE_ERRORS,
  tools: () => ({
    roll: defineTool({
      description: 'Roll a die.',
      inputSchema: z.object({ sides: z.number() }),
      execute: ({ sides }) => {
        throw diceError('too_many_sides', `a die has at most 100 sides, not ${sides}`, { field: 'sides' });
      },
    }),
    flip: defineTool({
      description: 'Flip a coin.',
      inputSchema: z.object({}),
      execute: () => {
        throw new Error('the coin rolled under the table');
      },
    }),
  }),
});

describe('a tool that throws', () => {
  it.each([
    ['a plugin error', 'roll', { sides: 1000 }, 'a die has at most 100 sides, not 1000'],
    ['a plain Error', 'flip', {}, 'the coin rolled under the table'],
  ])('%s reaches the model and the tool_call event as its message alone', async (_what, tool, args, message) => {
    const model = scriptedModel();
    const app = createOracleApp({
      config: { name: 'Dice', oracleDid: 'did:key:z6Mkdice' },
      dbPath: ':memory:',
      env: {},
      model,
      plugins: [dice],
      logger: { info: () => {}, error: () => {} },
      signingMnemonic: '',
    });
    try {
      await app.fastify.ready();
      const seen: unknown[] = [];
      model.enqueue(callTool(tool, args), (body) => {
        seen.push(lastToolResult(body));
        return say('sorry');
      });
      const user = 'did:key:z6Mkuser';
      const s = await app.runtime.store.createSession(user);
      const run = await app.runtime.startTurn(user, s.sessionId, { message: 'go' });
      expect(await run.done).toBe('finished');
      const events = run.events as unknown as { event: string; data: Record<string, unknown> }[];
      expect(seen).toEqual([message]);
      expect(events.find((e) => e.event === 'tool_call' && e.data.status === 'error')?.data.error).toBe(message);
    } finally {
      await app.close();
    }
  });
});
