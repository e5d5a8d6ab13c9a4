import { describe, expect, it } from 'vitest';
import {
  applyPatch,
  isActive,
  parseRfc3339,
  transition,
  validateCreate,
  type DomainState,
} from '../../../../src/lib/registry/domain.ts';

const NOW = Date.parse('2026-06-01T00:00:00Z');
const CLS = 'did:ixo:entity:0123456789abcdef0123456789abcdef';

describe('RFC 3339', () => {
  it.each([
    '2026-01-01T00:00:00Z',
    '2026-01-01t00:00:00z',
    '2026-01-01T00:00:00.123456+05:30',
    '2024-02-29T23:59:59-00:00',
  ])('accepts %s', (s) => expect(parseRfc3339(s)).toBeTypeOf('number'));
  it.each([
    '2026-01-01',
    '2026-01-01T00:00:00',
    '2026-13-01T00:00:00Z',
    '2025-02-29T00:00:00Z',
    '2026-01-01T24:00:00Z',
    '2026-01-01T00:00:00+25:00',
    '2026-01-01 00:00:00Z',
    'tomorrow',
  ])('refuses %s', (s) => expect(parseRfc3339(s)).toBeUndefined());
});

describe('create', () => {
  it('adds the caller to controllers and fills defaults', () => {
    expect(validateCreate({ type: 'Project', protocol: CLS }, 'did:example:me', NOW)).toEqual({
      type: 'Project',
      class: CLS,
      controllers: ['did:example:me'],
      metadata: {},
      services: [],
      validFrom: null,
      validUntil: null,
      alsoKnownAs: null,
    });
  });
  it('refuses prototype keys at any depth', () => {
    const meta = JSON.parse('{"a":[{"b":{"__proto__":1}}]}');
    expect(() => validateCreate({ type: 'Protocol', metadata: meta }, 'did:example:me', NOW)).toThrow(/__proto__/);
  });
});

describe('patch', () => {
  const base = validateCreate({ type: 'Project', class: CLS }, 'did:example:me', NOW);
  it('reverify only for type, class, controllers, services', () => {
    expect(applyPatch(base, { metadata: { name: 'x' } }, NOW).reverify).toBe(false);
    expect(applyPatch(base, { controllers: ['did:example:me', 'did:example:you'] }, NOW).reverify).toBe(true);
    expect(
      applyPatch(base, { services: [{ id: '#a', type: 'web', serviceEndpoint: 'https://a.org' }] }, NOW).reverify,
    ).toBe(true);
    expect(applyPatch(base, { controllers: ['did:example:me'] }, NOW).changed).toEqual([]);
  });
});

describe('derived and state machine', () => {
  it('active within validFrom..validUntil and not deactivated', () => {
    const d = {
      state: 'verified' as DomainState,
      validFrom: '2026-01-01T00:00:00Z',
      validUntil: '2027-01-01T00:00:00Z',
    };
    expect(isActive(d, NOW)).toBe(true);
    expect(isActive({ ...d, validUntil: '2026-06-01T00:00:00Z' }, NOW)).toBe(false);
    expect(isActive({ ...d, validFrom: '2026-07-01T00:00:00Z' }, NOW)).toBe(false);
    expect(isActive({ ...d, state: 'deactivated' }, NOW)).toBe(false);
  });
  it('transitions of registry.md', () => {
    expect(transition('registered', 'propose')).toBe('pending_verification');
    expect(transition('verification_rejected', 'propose')).toBe('pending_verification');
    expect(transition('pending_verification', 'proposal_passed')).toBe('verified');
    expect(transition('pending_verification', 'proposal_failed')).toBe('verification_rejected');
    expect(transition('verified', 'reverify')).toBe('registered');
    for (const s of ['registered', 'pending_verification', 'verified', 'verification_rejected'] as DomainState[])
      expect(transition(s, 'deactivate')).toBe('deactivated');
    expect(() => transition('verified', 'propose')).toThrow(/cannot/);
    expect(() => transition('deactivated', 'deactivate')).toThrow();
    expect(() => transition('deactivated', 'reverify')).toThrow();
  });
});
