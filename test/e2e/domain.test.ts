/**
 * The `domain` and `sample show|list|approve` commands end to end through the
 * real CLI, against a daemon it auto-starts (and, with --registry, a remote
 * one), with exit codes per error class.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli } from '../helpers/cli.ts';
import { PKG, tempHome } from '../unit/daemon/harness.ts';
import { saveDesign } from '../../src/cli/registry/client.ts';
import { NORTH_SOUTH_CALC_ARGS, SIMPLE_CALC_ARGS } from '../helpers/sampling-designs.ts';

const t = tempHome({ voters: [{ did: 'did:example:v1', weight: 1 }] });
const env = t.env;
const json = (s: string) => JSON.parse(s);
let rep: string;
let voter: string;
let verifier: string;
let url: string;

const cli = async (args: string[], extra: Record<string, string> = {}) => runCli(args, { env: { ...env, ...extra } });

beforeAll(async () => {
  const start = await cli(['daemon', 'start', '--json']);
  expect(start.code, start.stderr).toBe(0);
  url = json(start.stdout).url;
  const mk = async (did: string, ...roles: string[]) =>
    json(
      (await cli(['daemon', 'keys', 'create', '--did', did, ...roles.flatMap((r) => ['--role', r]), '--json'])).stdout,
    ).key as string;
  rep = await mk('did:example:rep', 'representative', 'member');
  voter = await mk('did:example:v1', 'voter');
  verifier = await mk('did:example:verifier', 'verifier');
});
afterAll(async () => {
  await cli(['daemon', 'stop', '--grace', '1']);
  t.cleanup();
});

describe('domain commands', () => {
  let proto: string;
  let project: string;
  it('register, show, list', async () => {
    const p = await cli([
      'domain',
      'register',
      '--type',
      'Protocol',
      '--name',
      'Clean cookstoves',
      '--json',
      '--api-key',
      rep,
    ]);
    expect(p.code, p.stderr).toBe(0);
    proto = json(p.stdout).id;
    const r = await cli([
      'domain',
      'register',
      '--type',
      'Project',
      '--class',
      proto,
      '--name',
      'Kisumu',
      '--valid-until',
      '2099-01-01T00:00:00Z',
      '--service',
      '#web=website,https://kisumu.example.org',
      '--controller',
      'did:example:partner',
      '--also-known-as',
      'KE-1',
      '--json',
      '--api-key',
      rep,
    ]);
    expect(r.code, r.stderr).toBe(0);
    const d = json(r.stdout);
    project = d.id;
    expect(d).toMatchObject({
      type: 'Project',
      class: proto,
      controllers: ['did:example:rep', 'did:example:partner'],
      services: [{ id: '#web' }],
      alsoKnownAs: 'KE-1',
      state: 'registered',
    });
    const show = await cli(['domain', 'show', project, '--api-key', rep]);
    expect(show.stdout).toContain('Kisumu');
    const list = await cli(['domain', 'list', '--type', 'Project', '--json', '--api-key', rep]);
    expect(json(list.stdout).items.map((x: { id: string }) => x.id)).toEqual([project]);
  });

  it('exit codes: 400 → 3, 409 → 4, 422 → 5, 404 → 6, 403 → 7', async () => {
    const bad = await cli([
      'domain',
      'register',
      '--type',
      'Project',
      '--class',
      'did:example:abc:',
      '--json',
      '--api-key',
      rep,
    ]);
    expect(bad.code).toBe(3);
    expect(json(bad.stderr)).toMatchObject({ statusCode: 400, code: 'invalid_did', field: 'class' });
    expect(
      (
        await cli([
          'domain',
          'register',
          '--type',
          'Project',
          '--class',
          proto,
          '--also-known-as',
          'KE-1',
          '--api-key',
          rep,
        ])
      ).code,
    ).toBe(4);
    expect((await cli(['domain', 'register', '--type', 'Project', '--class', project, '--api-key', rep])).code).toBe(5);
    expect((await cli(['domain', 'show', 'did:ixo:entity:' + '0'.repeat(32), '--api-key', rep])).code).toBe(6);
    expect((await cli(['domain', 'update', project, '--name', 'x', '--api-key', voter])).code).toBe(7);
  });

  it('update with If-Match; stale → exit 4', async () => {
    const u = await cli(['domain', 'update', project, '--name', 'Kisumu West', '--json', '--api-key', rep]);
    expect(u.code, u.stderr).toBe(0);
    expect(json(u.stdout)).toMatchObject({ version: 2, metadata: { name: 'Kisumu West' } });
    const stale = await cli([
      'domain',
      'update',
      project,
      '--name',
      'again',
      '--if-match',
      '1',
      '--json',
      '--api-key',
      rep,
    ]);
    expect(stale.code).toBe(4);
    expect(json(stale.stderr).code).toBe('stale_version');
  });

  it('propose, status, vote → verified; sample approve needs it', async () => {
    const saved = await saveDesign({ population: 1200, expectedMean: 2, expectedSD: 1, dropoutRate: 0.15 }, project, {
      apiKey: rep,
      env: { ...process.env, ...env },
    });
    expect(saved).toMatchObject({ projectId: project, version: 1, verification: { status: 'draft' } });
    const id = (saved as { designId: string }).designId;
    const show = await cli(['sample', 'show', id, '--api-key', rep]);
    expect(show.code, show.stderr).toBe(0);
    expect(show.stdout).toContain('verification  draft');
    const list = await cli(['sample', 'list', '--project', project, '--json', '--api-key', rep]);
    expect(json(list.stdout).items.map((x: { designId: string }) => x.designId)).toEqual([id]);
    const early = await cli(['sample', 'approve', id, '--json', '--api-key', verifier]);
    expect(early.code).toBe(4);
    expect(json(early.stderr).code).toBe('not_eligible');

    const pkg = join(t.home, 'package.json');
    writeFileSync(pkg, JSON.stringify(PKG));
    const p = await cli([
      'domain',
      'propose',
      project,
      '--package',
      pkg,
      '--description',
      'entity documents',
      '--json',
      '--api-key',
      rep,
    ]);
    expect(p.code, p.stderr).toBe(0);
    const proposal = json(p.stdout).id;
    const st = await cli(['domain', 'status', project, '--json', '--api-key', rep]);
    expect(json(st.stdout)).toMatchObject({
      state: 'pending_verification',
      proposal: { id: proposal, status: 'open' },
    });
    expect((await cli(['domain', 'vote', proposal, 'maybe', '--api-key', voter])).code).toBe(2);
    const v = await cli(['domain', 'vote', proposal, 'yes', '--json', '--api-key', voter]);
    expect(v.code, v.stderr).toBe(0);
    expect(json(v.stdout).status).toBe('executed');
    const st2 = await cli(['domain', 'status', project, '--api-key', rep]);
    expect(st2.stdout).toContain('verified (active true, eligible true)');
    const ok = await cli(['sample', 'approve', id, '--json', '--api-key', verifier]);
    expect(ok.code, ok.stderr).toBe(0);
    expect(json(ok.stdout).verification).toMatchObject({ status: 'approved', verifier: 'did:example:verifier' });
  });

  it('sample calc --save stores the design the same engine computes', async () => {
    const r = await cli([
      'sample',
      'calc',
      ...NORTH_SOUTH_CALC_ARGS,
      '--save',
      '--project',
      project,
      '--json',
      '--api-key',
      rep,
    ]);
    expect(r.code, r.stderr).toBe(0);
    const rec = json(r.stdout);
    expect(rec).toMatchObject({
      projectId: project,
      version: 1,
      parameters: { calculatedSize: 490, adjustedSize: 545, erCoverage: 0.9 },
    });
    expect(rec.stratification.strata.map((s: { sampleSize: number }) => s.sampleSize)).toEqual([275, 270]);
    const show = await cli(['sample', 'show', rec.designId, '--json', '--api-key', rep]);
    expect(json(show.stdout).parameters.adjustedSize).toBe(545);
    const text = await cli(['sample', 'calc', ...SIMPLE_CALC_ARGS, '--save', '--project', project, '--api-key', rep]);
    expect(text.stdout).toMatch(/^Saved as \S+ \(version 1\) for did:ixo:entity:/);
    const missing = await cli([
      'sample',
      'calc',
      '-N',
      '100',
      '--mean',
      '1',
      '--sd',
      '0.5',
      '--dropout',
      '0',
      '--save',
      '--json',
      '--api-key',
      rep,
    ]);
    expect(missing.code).toBe(3);
    expect(json(missing.stderr).field).toBe('--project');
    const invalid = await cli([
      'sample',
      'calc',
      '-N',
      '60',
      '--mean',
      '1',
      '--sd',
      '0.5',
      '--dropout',
      '0.25',
      '--save',
      '--project',
      project,
      '--json',
      '--api-key',
      rep,
    ]);
    expect(invalid.code).toBe(5);
  });

  it('bad flag values are input errors naming the flag, before any request (exit 3)', async () => {
    const meta = await cli([
      'domain',
      'register',
      '--type',
      'Protocol',
      '--metadata',
      '{not json',
      '--json',
      '--api-key',
      rep,
    ]);
    expect(meta.code).toBe(3);
    expect(json(meta.stderr)).toMatchObject({
      statusCode: 400,
      code: 'invalid_metadata',
      field: 'metadata',
      details: { value: '{not json' },
    });
    const arr = await cli(['domain', 'update', project, '--metadata', '[1]', '--json', '--api-key', rep]);
    expect(json(arr.stderr)).toMatchObject({ code: 'invalid_metadata', field: 'metadata' });
    const svc = await cli(['domain', 'register', '--type', 'Protocol', '--service', 'api', '--json', '--api-key', rep]);
    expect(svc.code).toBe(3);
    expect(json(svc.stderr)).toMatchObject({ code: 'invalid_service', field: 'service' });
    const pkg = await cli([
      'domain',
      'propose',
      project,
      '--package',
      join(t.home, 'no-such-package.json'),
      '--json',
      '--api-key',
      rep,
    ]);
    expect(pkg.code).toBe(3);
    expect(json(pkg.stderr)).toMatchObject({ code: 'unreadable_file', field: 'package' });
  });

  it('deactivate is terminal', async () => {
    const d = await cli(['domain', 'deactivate', project, '--json', '--api-key', rep]);
    expect(json(d.stdout)).toMatchObject({ state: 'deactivated', active: false });
    expect((await cli(['domain', 'deactivate', project, '--api-key', rep])).code).toBe(4);
  });

  it('--registry <url> with --api-key reaches a registry without the discovery file', async () => {
    const r = await runCli(['domain', 'list', '--registry', url, '--api-key', rep, '--json'], {
      env: { ...env, ORACLEKIT_HOME: join(t.home, 'elsewhere'), CI: 'true' },
    });
    expect(r.code, r.stderr).toBe(0);
    expect(json(r.stdout).items.length).toBeGreaterThan(0);
  });
});
