import { describe, expect, it } from 'vitest';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  callsSource,
  defaultOraclekitSource,
  givenOraclekitSource,
  oraclekitDependency,
} from '../../../../src/cli/scaffold/oraclekit-dep.ts';

const never = new AbortController().signal;

describe("the scaffolded project's oraclekit dependency", () => {
  it('packs the checkout when the CLI runs from a source checkout (not yet published)', () => {
    const root = mkdtempSync(join(tmpdir(), 'ok-checkout-'));
    mkdirSync(join(root, 'src'));
    writeFileSync(join(root, 'package.json'), '{}');
    expect(defaultOraclekitSource('0.1.0', root)).toEqual({ pack: root });
    expect(defaultOraclekitSource('0.1.0')).toEqual({ pack: join(import.meta.dirname, '../../../..') });
  });

  it('is a caret range of this version when the CLI is an installed package', () => {
    const root = mkdtempSync(join(tmpdir(), 'ok-installed-'));
    const pkg = join(root, 'node_modules', 'oraclekit');
    mkdirSync(join(pkg, 'src'), { recursive: true });
    writeFileSync(join(pkg, 'package.json'), '{}');
    expect(defaultOraclekitSource('0.1.0', pkg + '/')).toEqual({ spec: '^0.1.0' });
    expect(defaultOraclekitSource('2.3.4', mkdtempSync(join(tmpdir(), 'ok-dist-only-')))).toEqual({ spec: '^2.3.4' });
  });

  it('copies a given tarball into vendor/ and names it by a relative path; keeps a registry spec or a missing file', async () => {
    const work = mkdtempSync(join(tmpdir(), 'ok-given-'));
    writeFileSync(join(work, 'oraclekit-0.1.0.tgz'), 'a tarball');
    const source = givenOraclekitSource('file:oraclekit-0.1.0.tgz', work);
    expect(source).toEqual({ tarball: join(work, 'oraclekit-0.1.0.tgz') });
    const project = join(work, 'p');
    mkdirSync(project);
    expect(await oraclekitDependency(project, source, {}, never)).toEqual({
      spec: 'file:vendor/oraclekit-0.1.0.tgz',
      vendored: 'vendor/oraclekit-0.1.0.tgz',
    });
    expect(readFileSync(join(project, 'vendor/oraclekit-0.1.0.tgz'), 'utf8')).toBe('a tarball');
    for (const spec of ['^0.2.0', 'file:/nonexistent/oraclekit.tgz']) {
      expect(await oraclekitDependency(project, givenOraclekitSource(spec, work), {}, never)).toEqual({ spec });
    }
    expect(givenOraclekitSource(`file:${work}`, '/')).toEqual({ pack: work });
    expect(existsSync(join(project, 'vendor'))).toBe(true);
  });

  it("@oraclekit/calls follows oraclekit: the checkout's src/calls, the calls tarball beside a given one, else the registry", () => {
    const root = mkdtempSync(join(tmpdir(), 'ok-calls-'));
    mkdirSync(join(root, 'src', 'calls'), { recursive: true });
    expect(callsSource({ pack: root }, '0.1.0')).toEqual({ spec: '^0.1.0' });
    writeFileSync(join(root, 'src', 'calls', 'package.json'), '{}');
    expect(callsSource({ pack: root }, '0.1.0')).toEqual({ pack: join(root, 'src', 'calls') });
    const packs = mkdtempSync(join(tmpdir(), 'ok-packs-'));
    writeFileSync(join(packs, 'oraclekit-0.1.0.tgz'), 'cli');
    expect(callsSource({ tarball: join(packs, 'oraclekit-0.1.0.tgz') }, '0.1.0')).toEqual({ spec: '^0.1.0' });
    writeFileSync(join(packs, 'oraclekit-calls-0.1.0.tgz'), 'calls');
    expect(callsSource({ tarball: join(packs, 'oraclekit-0.1.0.tgz') }, '0.1.0')).toEqual({
      tarball: join(packs, 'oraclekit-calls-0.1.0.tgz'),
    });
    expect(callsSource({ spec: '^0.2.0' }, '0.1.0')).toEqual({ spec: '^0.1.0' });
  });
});
