/**
 * user-preferences (runtime.md): per room (user × oracle) behavioural
 * preferences — how the agent responds. Loaded into the turn's state before
 * the agent is compiled, so the system prompt sees them on turn 1, and
 * refreshed after set_user_preferences (the next model step's prompt has them).
 */
import { z } from 'zod';
import { definePlugin, defineTool } from '../../plugin.ts';
import { getUser } from '../../auth.ts';

const PREFERENCES_STATE_KEY = 'userPreferences';

const PreferencesSchema = z.object({
  agentName: z.string().max(64).optional().describe('what the user calls the agent'),
  userName: z.string().max(64).optional().describe('what the agent calls the user'),
  language: z.string().max(64).optional().describe('language of the answers, e.g. "French"'),
  tone: z.string().max(64).optional().describe('e.g. "formal", "friendly", "concise and direct"'),
  length: z.string().max(64).optional().describe('e.g. "short", "detailed"'),
  format: z.string().max(64).optional().describe('e.g. "bullet points", "plain prose", "tables when useful"'),
  customInstructions: z.string().max(2000).optional().describe('any other standing instruction about how to respond'),
});
type Preferences = z.infer<typeof PreferencesSchema>;

const RULES =
  'Preferences are for HOW the agent responds (name, tone, language, length, format, standing instructions). ' +
  'Facts about the user and their artifacts belong to memory, not here. ' +
  'A one-turn formatting request ("answer this one in a table") is honoured for that turn and NOT saved. ' +
  'Call set_user_preferences only when the user asks to change how you respond from now on; send only the fields ' +
  'that change.';

function render(p: Preferences): string | undefined {
  const lines: string[] = [];
  if (p.agentName) lines.push(`- Your name (what the user calls you): ${p.agentName}`);
  if (p.userName) lines.push(`- Call the user: ${p.userName}`);
  if (p.language) lines.push(`- Answer in: ${p.language}`);
  if (p.tone) lines.push(`- Tone: ${p.tone}`);
  if (p.length) lines.push(`- Length: ${p.length}`);
  if (p.format) lines.push(`- Format: ${p.format}`);
  if (p.customInstructions) lines.push(`- Standing instructions: ${p.customInstructions}`);
  return lines.length ? `The user's preferences for how you respond (follow them):\n${lines.join('\n')}` : undefined;
}

export const userPreferencesPlugin = definePlugin({
  name: 'user-preferences',
  version: '1.0.0',
  manifest: {
    title: 'User preferences',
    summary:
      'Remembers how the user wants the agent to respond (name, tone, language, length, format, instructions) ' +
      'across sessions.',
    whenToUse: [
      'the user asks you to change how you respond from now on (tone, language, length, format, your name, their name)',
    ],
    whenNotToUse: ['facts about the user or their work (memory)', 'a formatting request for this turn only'],
    visibility: 'always',
    stability: 'stable',
    category: 'personalisation',
    defaultState: 'on',
    dependsOn: [],
  },
  stateKeys: [PREFERENCES_STATE_KEY],
  loadState: async (turn, ctx) => ({ [PREFERENCES_STATE_KEY]: await ctx.store.getPreferences(turn.userDid) }),
  systemPrompt: (state) => {
    const p = PreferencesSchema.safeParse(state[PREFERENCES_STATE_KEY] ?? {});
    const body = p.success ? render(p.data) : undefined;
    return [`About user preferences: ${RULES}`, body].filter(Boolean).join('\n');
  },
  tools: (ctx) => ({
    set_user_preferences: defineTool({
      description:
        `Save how the user wants you to respond, merged into their saved preferences (partial update; ` +
        `persisted across sessions). ${RULES}`,
      inputSchema: PreferencesSchema,
      execute: async (input, turn) => {
        const current = PreferencesSchema.partial().parse(await ctx.store.getPreferences(turn.userDid));
        const merged: Preferences = { ...current };
        for (const [k, v] of Object.entries(input)) if (v !== undefined) (merged as Record<string, unknown>)[k] = v;
        await ctx.store.setPreferences(turn.userDid, merged);
        turn.state[PREFERENCES_STATE_KEY] = merged; // refreshed for the next model step
        return { ok: true, preferences: merged };
      },
    }),
  }),
  routes: (app, ctx) => {
    app.get('/user-preferences', async (req) => {
      return { preferences: await ctx.store.getPreferences(getUser(req).did) };
    });
  },
});
