/** The nearest command or flag for a mistyped one (src/cli/did-you-mean.ts). */
import { describe, expect, it } from 'vitest';
import { editDistance, suggest, suggestCommand } from '../../../src/cli/did-you-mean.ts';

const IDS = [
  'sample',
  'sample:calc',
  'sample:recalc',
  'sample:select',
  'sample:select:draw',
  'domain',
  'domain:list',
  'domain:register',
  'chat',
  'daemon',
  'daemon:start',
];

describe('editDistance', () => {
  it('counts a swap of two neighbours as one edit', () => {
    expect(editDistance('sampel', 'sample')).toBe(1);
    expect(editDistance('--dropuot', '--dropout')).toBe(1);
    expect(editDistance('', 'abc')).toBe(3);
    expect(editDistance('kitten', 'sitting')).toBe(3);
    expect(editDistance('same', 'same')).toBe(0);
  });
});

describe('suggest (flags)', () => {
  const flags = ['--population', '--mean', '--sd', '--proportion', '--dropout', '--stratum', '--json'];
  it('offers the nearest flag, and nothing for a word far from every flag', () => {
    expect(suggest('--dropuot', flags)).toEqual(['--dropout']);
    expect(suggest('--poplation', flags)).toEqual(['--population']);
    expect(suggest('--zzz', flags)).toEqual([]);
  });
});

describe('suggestCommand', () => {
  it('prefers the whole command over its topic, and reads ids with their words', () => {
    expect(suggestCommand('sampel:calc', IDS)).toBe('sample:calc');
    expect(suggestCommand('sample:calcc', IDS)).toBe('sample:calc');
    expect(suggestCommand('domian:lst', IDS)).toBe('domain:list');
    expect(suggestCommand('sampel', IDS)).toBe('sample');
    expect(suggestCommand('sample:xyz', IDS)).toBe('sample');
    expect(suggestCommand('caht', IDS)).toBe('chat');
    expect(suggestCommand('frobnicate', IDS)).toBeUndefined();
  });
});
