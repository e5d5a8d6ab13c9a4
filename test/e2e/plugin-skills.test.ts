import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startHarness, type Harness } from '../helpers/runtime-harness.ts';
import { callTool, lastToolResult, say, systemPromptOf } from '../helpers/scripted-model-server.ts';
import type { AnyEvent } from '../../src/lib/protocol/index.ts';

let h: Harness;
let skillsDir: string;
beforeAll(async () => {
  skillsDir = mkdtempSync(join(tmpdir(), 'oraclekit-skills-'));
  mkdirSync(join(skillsDir, 'monitoring-report', 'templates'), { recursive: true });
  writeFileSync(
    join(skillsDir, 'monitoring-report', 'SKILL.md'),
    '---\nname: monitoring-report\ndescription: Write a cookstove monitoring report in the house style (sections, tables, units).\nlicense: Apache-2.0\n---\n# Monitoring report\n\nAlways start with "Summary:" and give hours of use with one decimal.\nUse templates/report.md for the layout.\n',
  );
  writeFileSync(
    join(skillsDir, 'monitoring-report', 'templates', 'report.md'),
    '# {{project}}\n## Summary\n## Usage\n',
  );
  mkdirSync(join(skillsDir, 'haiku'));
  writeFileSync(
    join(skillsDir, 'haiku', 'SKILL.md'),
    '---\nname: haiku\ndescription: Answer in a 5-7-5 haiku.\n---\nWrite exactly three lines.\n',
  );
  h = await startHarness({ env: { SKILLS_DIR: skillsDir } });
});
afterAll(async () => {
  await h.close();
  rmSync(skillsDir, { recursive: true, force: true });
});

const toolEvents = (events: AnyEvent[]) =>
  events.filter((e) => e.event === 'tool_call').map((e) => (e.event === 'tool_call' ? e.data : undefined)!);

describe('skills plugin through the agent, over a real SKILL.md folder', () => {
  it('is loaded by SKILLS_DIR and reported truthfully', async () => {
    expect(h.lines).toContain('[boot] loaded: skills');
    expect(h.app.plugins.status().loaded).toContain('skills');
    expect((await (await fetch(`${h.url}/ready`)).json()).plugins.loaded).toContain('skills');
  });

  it('list_skills → load_skill: the instructions reach the model and stay in the system prompt for the session', async () => {
    const u = await h.user();
    const sessionId = await u.newSession();
    h.model.enqueue(
      callTool('load_capability', { names: ['skills'] }, 'c_cap'),
      callTool('list_skills', {}, 'c_list'),
      callTool('load_skill', { name: 'monitoring-report' }, 'c_load'),
      callTool('load_skill', { name: 'monitoring-report', file: 'templates/report.md' }, 'c_file'),
      say('Summary: 3.1 hours a day.'),
    );
    const before = h.model.requests.length;
    const { events } = await u.stream(sessionId, 'Write the monitoring report');
    expect(events.at(-1)).toMatchObject({ event: 'done', data: { status: 'finished' } });
    const calls = toolEvents(events);
    expect(calls.filter((c) => c.status !== 'isRunning').map((c) => [c.eventId, c.status])).toEqual([
      ['c_cap', 'done'],
      ['c_list', 'done'],
      ['c_load', 'done'],
      ['c_file', 'done'],
    ]);
    const reqs = h.model.requests.slice(before);
    expect(lastToolResult(reqs[2]!.body)).toEqual({
      skills: [
        { name: 'haiku', description: 'Answer in a 5-7-5 haiku.', loaded: false },
        {
          name: 'monitoring-report',
          description: 'Write a cookstove monitoring report in the house style (sections, tables, units).',
          loaded: false,
        },
      ],
    });
    expect(lastToolResult(reqs[3]!.body)).toEqual({
      name: 'monitoring-report',
      description: 'Write a cookstove monitoring report in the house style (sections, tables, units).',
      meta: { license: 'Apache-2.0' },
      instructions:
        '# Monitoring report\n\nAlways start with "Summary:" and give hours of use with one decimal.\nUse templates/report.md for the layout.',
      files: ['templates/report.md'],
    });
    expect(lastToolResult(reqs[4]!.body)).toEqual({
      name: 'monitoring-report',
      file: 'templates/report.md',
      content: '# {{project}}\n## Summary\n## Usage\n',
    });
    // before load_skill the prompt has no skill; from the next step on it does
    expect(systemPromptOf(reqs[2]!.body)).not.toContain('Always start with "Summary:"');
    expect(systemPromptOf(reqs[3]!.body)).toContain('## Skill: monitoring-report\n# Monitoring report');

    // next turn of the same session: still in the prompt, and list_skills says loaded
    h.model.enqueue(callTool('list_skills', {}, 'c_list2'), say('ok'));
    const n = h.model.requests.length;
    await u.stream(sessionId, 'and again');
    expect(systemPromptOf(h.model.requests[n]!.body)).toContain('Always start with "Summary:"');
    expect(
      (lastToolResult(h.model.requests[n + 1]!.body) as { skills: { name: string; loaded: boolean }[] }).skills,
    ).toContainEqual({ name: 'monitoring-report', description: expect.any(String), loaded: true });

    // another session does not inherit it
    const other = await u.newSession();
    h.model.enqueue(say('hi'));
    const m = h.model.requests.length;
    await u.stream(other, 'hello');
    expect(systemPromptOf(h.model.requests[m]!.body)).not.toContain('## Skill:');
  });

  it('an unknown skill or a file outside the pack is a clear tool error', async () => {
    const u = await h.user();
    const sessionId = await u.newSession();
    h.model.enqueue(
      callTool('load_capability', { names: ['skills'] }),
      callTool('load_skill', { name: 'poetry' }, 'c_unknown'),
      callTool('load_skill', { name: 'haiku', file: '../monitoring-report/SKILL.md' }, 'c_escape'),
      say('Sorry.'),
    );
    const before = h.model.requests.length;
    const { events } = await u.stream(sessionId, 'poem please');
    expect(events.at(-1)).toMatchObject({ event: 'done', data: { status: 'finished' } });
    const errs = toolEvents(events).filter((c) => c.status === 'error');
    expect(errs.map((e) => [e.eventId, e.error])).toEqual([
      [
        'c_unknown',
        "Unknown skill 'poetry'. Available skills: haiku, monitoring-report. Call list_skills to see them.",
      ],
      ['c_escape', "file '../monitoring-report/SKILL.md' is outside the skill 'haiku'"],
    ]);
    expect(JSON.stringify(lastToolResult(h.model.requests[before + 2]!.body))).toContain("Unknown skill 'poetry'");
  });
});
