/**
 * Reading a SKILLS_DIR: one sub-folder per pack, each with a SKILL.md whose
 * front matter (between `---` lines) gives `name` and `description`, and
 * whose body is the instructions. Other files of the folder (references,
 * scripts, templates) can be read one at a time, never outside the folder.
 */
import { existsSync, readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';

const MAX_SKILL_BYTES = 256 * 1024;
const MAX_FILES = 200;

interface SkillPack {
  name: string;
  description: string;
  folder: string;
  dir: string;
  /** Extra front-matter fields (license, allowed-tools, metadata, …) as strings. */
  meta: Record<string, string>;
}

interface SkillProblem {
  folder: string;
  reason: string;
}

/**
 * Minimal front matter of the subset SKILL.md uses: `key: value` lines,
 * single- or double-quoted values, and `|` / `>` block scalars with indented
 * continuation lines. Nested mappings are kept as their raw text.
 */
export function parseFrontMatter(text: string): { data: Record<string, string>; body: string } | undefined {
  const src = text.replace(/^\uFEFF/, '');
  const m = /^---[ \t]*\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/.exec(src);
  if (!m) return undefined;
  const lines = m[1]!.split(/\r?\n/);
  const data: Record<string, string> = {};
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const kv = /^([A-Za-z0-9_-]+):\s*(.*)$/.exec(line);
    if (!kv) continue;
    const key = kv[1]!;
    let value = kv[2]!.trim();
    const block: string[] = [];
    while (i + 1 < lines.length && (/^\s+\S/.test(lines[i + 1]!) || lines[i + 1]!.trim() === ''))
      block.push(lines[++i]!.trim());
    while (block.length && block.at(-1) === '') block.pop();
    if (/^[|>][+-]?$/.test(value))
      value = value.startsWith('|') ? block.join('\n') : block.join(' ').replace(/\s+/g, ' ');
    else if (block.length) value = [value, ...block].join(value === '' ? '\n' : ' ').trim();
    if (
      (value.startsWith('"') && value.endsWith('"') && value.length >= 2) ||
      (value.startsWith("'") && value.endsWith("'") && value.length >= 2)
    ) {
      value = value.startsWith('"') ? (JSON.parse(value) as string) : value.slice(1, -1).replace(/''/g, "'");
    }
    data[key] = value;
  }
  return { data, body: src.slice(m[0].length).trim() };
}

function readSkillMd(dir: string): string {
  // a link out of the pack's folder is refused, as every file of the pack is (readSkillFile)
  const base = realpathSync(dir);
  const p = realpathSync(join(dir, 'SKILL.md'));
  if (!p.startsWith(base + sep)) throw new Error('SKILL.md is a link to a file outside its folder; refused');
  const st = statSync(p);
  if (!st.isFile()) throw new Error('SKILL.md is not a file');
  if (st.size > MAX_SKILL_BYTES) throw new Error(`SKILL.md is ${st.size} bytes (limit ${MAX_SKILL_BYTES})`);
  return readFileSync(p, 'utf8');
}

/** Scans the folder (fresh on every call, so new packs appear without a restart). */
export function scanSkills(root: string): { skills: SkillPack[]; problems: SkillProblem[] } {
  const skills: SkillPack[] = [];
  const problems: SkillProblem[] = [];
  const seen = new Map<string, string>();
  for (const e of readdirSync(root, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    if (!e.isDirectory() || e.name.startsWith('.')) continue;
    const dir = join(root, e.name);
    if (!existsSync(join(dir, 'SKILL.md'))) continue;
    let fm;
    try {
      fm = parseFrontMatter(readSkillMd(dir));
    } catch (err) {
      problems.push({ folder: e.name, reason: (err as Error).message });
      continue;
    }
    if (!fm) {
      problems.push({ folder: e.name, reason: 'SKILL.md has no front matter (--- name: … description: … ---)' });
      continue;
    }
    const name = (fm.data.name ?? e.name).trim();
    const description = (fm.data.description ?? '').trim();
    if (!description) {
      problems.push({ folder: e.name, reason: 'SKILL.md front matter has no description' });
      continue;
    }
    const prev = seen.get(name.toLowerCase());
    if (prev !== undefined) {
      problems.push({ folder: e.name, reason: `duplicate skill name '${name}' (also in folder ${prev})` });
      continue;
    }
    seen.set(name.toLowerCase(), e.name);
    const meta = { ...fm.data };
    delete meta.name;
    delete meta.description;
    skills.push({ name, description, folder: e.name, dir, meta });
  }
  return { skills, problems };
}

export function findSkill(root: string, name: string): SkillPack | undefined {
  const want = name.trim().toLowerCase();
  const { skills } = scanSkills(root);
  return skills.find((s) => s.name.toLowerCase() === want) ?? skills.find((s) => s.folder.toLowerCase() === want);
}

export function skillInstructions(pack: SkillPack): string {
  return parseFrontMatter(readSkillMd(pack.dir))?.body ?? '';
}

/** Files of the pack other than SKILL.md (relative, `/`-separated, at most 200). */
export function skillFiles(pack: SkillPack): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      if (out.length >= MAX_FILES || e.name.startsWith('.')) continue;
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile()) {
        const rel = relative(pack.dir, p).split(sep).join('/');
        if (rel !== 'SKILL.md') out.push(rel);
      }
    }
  };
  walk(pack.dir);
  return out;
}

/** Reads one file of the pack; refuses paths that leave the pack (.., absolute, symlinks out). */
export function readSkillFile(pack: SkillPack, file: string): string {
  const base = realpathSync(pack.dir);
  const target = resolve(base, file);
  if (target !== base && !target.startsWith(base + sep))
    throw new Error(`file '${file}' is outside the skill '${pack.name}'`);
  if (!existsSync(target))
    throw new Error(`skill '${pack.name}' has no file '${file}'. Files: ${skillFiles(pack).join(', ') || '(none)'}`);
  const real = realpathSync(target);
  if (real !== base && !real.startsWith(base + sep))
    throw new Error(`file '${file}' is outside the skill '${pack.name}'`);
  const st = statSync(real);
  if (!st.isFile()) throw new Error(`'${file}' is not a file of the skill '${pack.name}'`);
  if (st.size > MAX_SKILL_BYTES) throw new Error(`'${file}' is ${st.size} bytes (limit ${MAX_SKILL_BYTES})`);
  const buf = readFileSync(real);
  if (buf.includes(0)) throw new Error(`'${file}' is a binary file; only text files can be read`);
  return buf.toString('utf8');
}
