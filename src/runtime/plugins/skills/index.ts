/**
 * skills (runtime.md): SKILLS_DIR is a folder of SKILL.md packs; tools
 * list_skills and load_skill. A loaded skill's instructions join the
 * session's state (`loadedSkills`) and the system prompt from the next model
 * step on, for the rest of the session (re-read from disk each turn, so an
 * edited pack takes effect at once). On-demand.
 */
import { statSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { z } from 'zod';
import { definePlugin, defineTool } from '../../plugin.ts';
import { findSkill, readSkillFile, scanSkills, skillFiles, skillInstructions } from './skills.ts';

const SKILLS_STATE_KEY = 'loadedSkills';
/** Cap on the instructions of loaded skills added to the system prompt. */
const PROMPT_BUDGET = 48 * 1024;

const SkillsEnvSchema = z.object({
  SKILLS_DIR: z
    .string()
    .trim()
    .min(1, 'required')
    .transform((v) => (isAbsolute(v) ? v : resolve(v)))
    .refine(
      (v) => {
        try {
          return statSync(v).isDirectory();
        } catch {
          return false;
        }
      },
      { message: 'not an existing directory (a folder of skill packs, each with a SKILL.md)' },
    ),
});
type SkillsEnv = z.infer<typeof SkillsEnvSchema>;

function loadedSkills(state: Record<string, unknown>): string[] {
  const v = state[SKILLS_STATE_KEY];
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}

export const skillsPlugin = definePlugin<SkillsEnv>({
  name: 'skills',
  version: '1.0.0',
  manifest: {
    title: 'Skills',
    summary:
      'Instruction packs (SKILL.md) for specialised tasks: list them, then load the one that fits to follow its ' +
      'instructions.',
    whenToUse: [
      'a task may have a dedicated procedure, template or house style (call list_skills to see the packs)',
      'the user names a skill or asks what skills you have',
    ],
    whenNotToUse: ['simple questions you can answer directly'],
    visibility: 'on-demand',
    stability: 'stable',
    category: 'knowledge',
    defaultState: 'on',
    dependsOn: [],
  },
  requiredEnv: ['SKILLS_DIR'],
  envSchema: SkillsEnvSchema,
  stateKeys: [SKILLS_STATE_KEY],
  systemPrompt: (state, ctx) => {
    const names = loadedSkills(state);
    if (names.length === 0) return undefined;
    const parts: string[] = [];
    let used = 0;
    for (const n of names) {
      const pack = findSkill(ctx.env.SKILLS_DIR, n);
      if (!pack) continue;
      let body: string;
      try {
        body = skillInstructions(pack);
      } catch {
        continue;
      }
      if (used + body.length > PROMPT_BUDGET) {
        parts.push(
          `## Skill: ${pack.name}\n(instructions too long for the prompt; call load_skill('${pack.name}') to ` +
            `read them)`,
        );
        continue;
      }
      used += body.length;
      parts.push(`## Skill: ${pack.name}\n${body}`);
    }
    return parts.length
      ? `Loaded skills — follow their instructions when the task matches:\n\n${parts.join('\n\n')}`
      : undefined;
  },
  tools: (ctx) => ({
    list_skills: defineTool({
      description:
        'List the available skills (instruction packs): name and description of each, and which are loaded in this ' +
        'conversation. Load one with load_skill before following it.',
      inputSchema: z.object({}),
      execute: (_input, turn) => {
        let scan;
        try {
          scan = scanSkills(ctx.env.SKILLS_DIR);
        } catch (e) {
          throw new Error(`the skills folder cannot be read: ${(e as Error).message}`, { cause: e });
        }
        const loaded = new Set(loadedSkills(turn.state).map((n) => n.toLowerCase()));
        return {
          skills: scan.skills.map((s) => ({
            name: s.name,
            description: s.description,
            loaded: loaded.has(s.name.toLowerCase()),
          })),
          ...(scan.problems.length ? { unreadable: scan.problems } : {}),
        };
      },
    }),
    load_skill: defineTool({
      description:
        'Load a skill by name (from list_skills): returns its instructions and the list of its other files, and ' +
        'keeps the instructions in your context for the rest of the conversation. ' +
        "Pass `file` (a path from that list) to read one of the skill's reference files instead.",
      inputSchema: z.object({
        name: z.string().min(1).describe('skill name from list_skills'),
        file: z.string().min(1).optional().describe("a file of the skill to read, e.g. 'reference/style.md'"),
      }),
      execute: ({ name, file }, turn) => {
        const pack = findSkill(ctx.env.SKILLS_DIR, name);
        if (!pack) {
          const known = scanSkills(ctx.env.SKILLS_DIR).skills.map((s) => s.name);
          throw new Error(
            `Unknown skill '${name}'. Available skills: ${known.join(', ') || '(none)'}. Call list_skills to see them.`,
          );
        }
        if (file !== undefined) return { name: pack.name, file, content: readSkillFile(pack, file) };
        const instructions = skillInstructions(pack);
        const loaded = loadedSkills(turn.state);
        if (!loaded.some((n) => n.toLowerCase() === pack.name.toLowerCase()))
          turn.state[SKILLS_STATE_KEY] = [...loaded, pack.name];
        return {
          name: pack.name,
          description: pack.description,
          ...(Object.keys(pack.meta).length ? { meta: pack.meta } : {}),
          instructions,
          files: skillFiles(pack),
        };
      },
    }),
  }),
});
