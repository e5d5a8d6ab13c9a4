/**
 * Writes a project from templates/oracle: text files with __TOKENS__
 * replaced, `_gitignore` renamed (npm drops .gitignore from packages), and
 * the generated oracle.config.json, .env (0600) and .env.example.
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { renderEnv, renderEnvExample, type EnvValues } from './env.ts';
import { writeDotEnv, writeOracleConfig } from '../../lib/project-files.ts';

/** templates/oracle (the same relative place from src/cli/scaffold and dist/cli/scaffold). */
const TEMPLATE_DIR = fileURLToPath(new URL('../../../templates/oracle/', import.meta.url));

/** What `new` writes to oracle.config.json: every field of lib/project-files.ts's schema it knows. */
export type OracleConfigFile = {
  name: string;
  description: string;
  model: string;
  prompt: string;
  oracleDid: string;
  price: number;
  network: string;
  apiUrl: string;
  wsUrl: string;
  registry?: string;
};

interface ProjectVars {
  packageName: string;
  oraclekitSpec: string;
  /** The spec of @oraclekit/calls (live calls). */
  callsSpec: string;
  config: OracleConfigFile;
  env: EnvValues;
}

const RENAME: Record<string, string> = { _gitignore: '.gitignore' };

function walk(dir: string, base = ''): string[] {
  const out: string[] = [];
  for (const e of readdirSync(join(dir, base), { withFileTypes: true })) {
    const rel = base ? `${base}/${e.name}` : e.name;
    if (e.name === 'node_modules' || e.name === 'data') continue;
    if (e.isDirectory()) out.push(...walk(dir, rel));
    else out.push(rel);
  }
  return out;
}

export function writeProject(dir: string, v: ProjectVars, templateDir = TEMPLATE_DIR): string[] {
  const tokens: Record<string, string> = {
    __PACKAGE_NAME__: v.packageName,
    __NAME__: v.config.name,
    __DESCRIPTION__: v.config.description,
    __DESCRIPTION_JSON__: JSON.stringify(v.config.description).slice(1, -1),
    __DID__: v.config.oracleDid,
    __NETWORK__: v.config.network,
    __URL__: v.config.apiUrl,
    __WS_URL__: v.config.wsUrl,
    __PORT__: String(v.env.port),
    __PRICE__: String(v.config.price),
    __ORACLEKIT_SPEC__: v.oraclekitSpec,
    __CALLS_SPEC__: v.callsSpec,
  };
  const written: string[] = [];
  for (const rel of walk(templateDir)) {
    const parts = rel.split('/');
    const last = parts.pop()!;
    const target = join(dir, ...parts, RENAME[last] ?? last);
    let text = readFileSync(join(templateDir, rel), 'utf8');
    text = text.replace(/__[A-Z_]+__/g, (t) => tokens[t] ?? t);
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, text);
    written.push([...parts, RENAME[last] ?? last].join('/'));
  }
  writeOracleConfig(join(dir, 'oracle.config.json'), v.config);
  writeDotEnv(join(dir, '.env'), renderEnv(v.env));
  writeFileSync(join(dir, '.env.example'), renderEnvExample(v.env));
  written.push('oracle.config.json', '.env', '.env.example');
  return written.sort();
}
