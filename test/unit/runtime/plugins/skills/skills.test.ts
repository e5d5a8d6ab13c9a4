import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  parseFrontMatter,
  readSkillFile,
  scanSkills,
  findSkill,
  skillFiles,
} from '../../../../../src/runtime/plugins/skills/skills.ts';
import { skillsPlugin } from '../../../../../src/runtime/plugins/skills/index.ts';
import { bootWith } from '../_helpers/boot.ts';

let root: string;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'oraclekit-skills-u-'));
  mkdirSync(join(root, 'a', 'ref'), { recursive: true });
  writeFileSync(
    join(root, 'a', 'SKILL.md'),
    '---\nname: alpha\ndescription: >\n  Folded\n  description\n---\n# Alpha\nDo it.\n',
  );
  writeFileSync(join(root, 'a', 'ref', 'x.md'), 'ref text');
  writeFileSync(join(root, 'secret.txt'), 'outside');
  symlinkSync(join(root, 'secret.txt'), join(root, 'a', 'link.txt'));
  mkdirSync(join(root, 'b'));
  writeFileSync(join(root, 'b', 'SKILL.md'), 'no front matter');
  mkdirSync(join(root, 'c'));
  writeFileSync(join(root, 'c', 'SKILL.md'), '---\nname: "alpha"\ndescription: dup\n---\nbody');
  mkdirSync(join(root, 'd'));
  writeFileSync(join(root, 'd', 'README.md'), 'not a skill');
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('SKILL.md front matter', () => {
  it('reads key: value, quotes and block scalars', () => {
    expect(
      parseFrontMatter("---\nname: x\ndescription: \"a: b\"\nlicense: 'it''s'\nnotes: |\n  one\n  two\n---\nbody\n"),
    ).toEqual({
      data: { name: 'x', description: 'a: b', license: "it's", notes: 'one\ntwo' },
      body: 'body',
    });
    expect(parseFrontMatter('# no front matter')).toBeUndefined();
  });
});

describe('scanning a folder of packs', () => {
  it('lists valid packs, reports broken and duplicate ones, ignores folders without SKILL.md', () => {
    const s = scanSkills(root);
    expect(s.skills.map((x) => [x.name, x.description, x.folder])).toEqual([['alpha', 'Folded description', 'a']]);
    expect(s.problems.map((p) => p.folder)).toEqual(['b', 'c']);
    expect(s.problems[1]!.reason).toMatch(/duplicate skill name 'alpha'/);
  });
  it('reads files of a pack but never outside it', () => {
    const p = findSkill(root, 'ALPHA')!;
    expect(skillFiles(p)).toEqual(['ref/x.md']); // symlinks are not listed
    expect(readSkillFile(p, 'ref/x.md')).toBe('ref text');
    expect(() => readSkillFile(p, '../secret.txt')).toThrow(/outside the skill 'alpha'/);
    expect(() => readSkillFile(p, 'link.txt')).toThrow(/outside the skill 'alpha'/);
    expect(() => readSkillFile(p, '/etc/passwd')).toThrow(/outside the skill 'alpha'/);
    expect(() => readSkillFile(p, 'nope.md')).toThrow(/has no file 'nope.md'/);
  });
});

describe('skills boot', () => {
  it('blank SKILLS_DIR excludes it with the line; a missing folder or a forced plugin without it is a boot error', async () => {
    const blank = await bootWith([skillsPlugin], { SKILLS_DIR: '' });
    expect(blank.lines).toContain('[boot] excluded: skills (SKILLS_DIR)');
    expect(blank.status!.excluded).toEqual([{ plugin: 'skills', reason: 'SKILLS_DIR' }]);
    const bad = await bootWith([skillsPlugin], { SKILLS_DIR: join(root, 'missing') });
    expect(bad.error).toBe(
      `[boot-error] Plugin 'skills' env validation failed for 'SKILLS_DIR' = ${JSON.stringify(join(root, 'missing'))}: not an existing directory (a folder of skill packs, each with a SKILL.md). Set 'SKILLS_DIR' or disable it: features: { skills: false }`,
    );
    const forced = await bootWith([skillsPlugin], {}, { skills: true });
    expect(forced.error).toBe(
      "[boot-error] Plugin 'skills' env validation failed for 'SKILLS_DIR': required but blank. Set 'SKILLS_DIR' or disable it: features: { skills: false }",
    );
    const ok = await bootWith([skillsPlugin], { SKILLS_DIR: root });
    expect(ok.lines).toContain('[boot] loaded: skills');
    expect(ok.status!.loaded).toEqual(['skills']);
  });
});
