/**
 * Domains (registry.md "Domains"): validation of create and patch bodies, the
 * derived `active`/`eligible`, and the state machine. Pure: the store checks
 * what needs the database (class is a live Protocol, alsoKnownAs unique).
 */
import { checkDid } from '../did/did.ts';
import { fieldError, registryError } from './errors.ts';

export const DOMAIN_TYPES = ['Organisation', 'Project', 'Asset', 'Device', 'Protocol', 'Oracle', 'Request'] as const;
type DomainType = (typeof DOMAIN_TYPES)[number];
export const DOMAIN_STATES = [
  'registered',
  'pending_verification',
  'verified',
  'verification_rejected',
  'deactivated',
] as const;
export type DomainState = (typeof DOMAIN_STATES)[number];

const MAX_CONTROLLERS = 16;
const MAX_METADATA_BYTES = 16 * 1024;
const MAX_METADATA_DEPTH = 8;
const MAX_SERVICES = 32;
const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

export interface Service {
  id: string;
  type: string;
  serviceEndpoint: string;
}

export interface DomainFields {
  type: DomainType;
  class: string | null;
  controllers: string[];
  metadata: Record<string, unknown>;
  services: Service[];
  validFrom: string | null;
  validUntil: string | null;
  alsoKnownAs: string | null;
}

export interface Domain extends DomainFields {
  id: string;
  state: DomainState;
  version: number;
  createdAt: string;
  updatedAt: string;
  deactivatedAt: string | null;
}

export interface DomainView extends Domain {
  active: boolean;
  eligible: boolean;
}

/**
 * A domain's fields as a request carries them, already shape-checked by the
 * registry's input schema (src/daemon/registry/inputs.ts: domainCreate, domainPatch —
 * known keys, types, lengths). validateCreate and applyPatch check only what
 * a schema cannot phrase: the exact type names, DID syntax and methods,
 * metadata size and depth, service URLs and ids, dates and their order.
 */
interface DomainInput {
  type?: string;
  class?: string | null;
  protocol?: string | null;
  controllers?: string[];
  metadata?: Record<string, unknown>;
  services?: Service[];
  validFrom?: string | null;
  validUntil?: string | null;
  alsoKnownAs?: string | null;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function requireDid(field: string, v: unknown): string {
  if (v === undefined) throw fieldError('missing_field', field, v, 'a DID');
  const c = checkDid(v);
  if (!c.ok) throw fieldError('invalid_did', field, v, c.reason ?? 'a DID');
  return v as string;
}

/** RFC 3339 date-time with a zone (Z or ±hh:mm); the calendar date must exist. */
const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?([Zz]|[+-](\d{2}):(\d{2}))$/;
export function parseRfc3339(s: unknown): number | undefined {
  if (typeof s !== 'string') return undefined;
  const m = RFC3339.exec(s);
  if (!m) return undefined;
  const [y, mo, d, h, mi, se] = [1, 2, 3, 4, 5, 6].map((i) => Number(m[i]));
  if (mo! < 1 || mo! > 12 || d! < 1 || h! > 23 || mi! > 59 || se! > 60) return undefined;
  const dim = new Date(Date.UTC(y!, mo!, 0)).getUTCDate();
  if (d! > dim) return undefined;
  if (m[9] !== undefined && (Number(m[9]) > 23 || Number(m[10]) > 59)) return undefined;
  const t = Date.parse(s.toUpperCase());
  return Number.isFinite(t) ? t : undefined;
}

function checkDate(field: string, v: unknown): string | null {
  if (v === undefined || v === null) return null;
  if (parseRfc3339(v) === undefined)
    throw fieldError('invalid_date', field, v, 'an RFC 3339 date-time with a zone, e.g. 2026-01-31T00:00:00Z');
  return v as string;
}

/** Walks metadata: size, depth, no prototype-polluting keys. */
function checkMetadata(v: unknown): Record<string, unknown> {
  if (!isPlainObject(v)) throw fieldError('invalid_metadata', 'metadata', v, 'a JSON object');
  const walk = (x: unknown, depth: number, path: string): void => {
    if (typeof x !== 'object' || x === null) return;
    // depth counts objects and arrays: metadata itself is level 1
    if (depth > MAX_METADATA_DEPTH)
      throw fieldError('invalid_metadata', path, '(nested)', `at most ${MAX_METADATA_DEPTH} levels of nesting`);
    if (Array.isArray(x)) x.forEach((e, i) => walk(e, depth + 1, `${path}[${i}]`));
    else {
      for (const k of Object.keys(x)) {
        if (FORBIDDEN_KEYS.has(k))
          throw fieldError('invalid_metadata', `${path}.${k}`, k, 'keys other than __proto__, constructor, prototype');
        walk((x as Record<string, unknown>)[k], depth + 1, `${path}.${k}`);
      }
    }
  };
  walk(v, 1, 'metadata');
  const size = Buffer.byteLength(JSON.stringify(v), 'utf8');
  if (size > MAX_METADATA_BYTES)
    throw fieldError('invalid_metadata', 'metadata', `${size} bytes`, `at most ${MAX_METADATA_BYTES} bytes of JSON`);
  return v;
}

export function checkHttpUrl(field: string, v: unknown): string {
  let u: URL;
  try {
    if (typeof v !== 'string' || v.length > 2048) throw new Error();
    u = new URL(v);
  } catch {
    throw fieldError('invalid_service', field, v, 'an absolute http(s) URL of at most 2048 characters');
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:')
    throw fieldError('invalid_service', field, v, 'an http or https URL');
  if (u.username !== '' || u.password !== '')
    throw fieldError('invalid_service', field, '(a URL with credentials)', 'a URL without user:password@');
  return v as string;
}

function checkServices(v: Service[], type: DomainType): Service[] {
  if (v.length > MAX_SERVICES)
    throw fieldError(
      'invalid_service',
      'services',
      v,
      `an array of at most ${MAX_SERVICES} {id, type, serviceEndpoint}`,
    );
  const ids = new Set<string>();
  return v.map((s, i) => {
    const f = `services[${i}]`;
    if (!/^(#[A-Za-z0-9._-]{1,64}|did:[^\s]{1,250})$/.test(s.id))
      throw fieldError('invalid_service', `${f}.id`, s.id, 'a fragment like #api or a DID URL');
    if (ids.has(s.id)) throw fieldError('invalid_service', `${f}.id`, s.id, 'service ids unique');
    ids.add(s.id);
    if (!/^[A-Za-z][A-Za-z0-9._-]{0,63}$/.test(s.type))
      throw fieldError('invalid_service', `${f}.type`, s.type, 'a service type name such as oracleService');
    if (type === 'Oracle' && (s.id === '#api' || s.id === '#ws') && s.type !== 'oracleService') {
      throw fieldError('invalid_service', `${f}.type`, s.type, `oracleService for an Oracle's ${s.id} service`);
    }
    return { id: s.id, type: s.type, serviceEndpoint: checkHttpUrl(`${f}.serviceEndpoint`, s.serviceEndpoint) };
  });
}

function checkControllers(v: string[] = [], caller: string | undefined): string[] {
  const list = v.map((d, i) => requireDid(`controllers[${i}]`, d));
  if (new Set(list).size !== list.length) throw fieldError('invalid_controllers', 'controllers', v, 'unique DIDs');
  if (caller !== undefined && !list.includes(caller)) list.unshift(caller);
  if (list.length < 1 || list.length > MAX_CONTROLLERS)
    throw fieldError(
      'invalid_controllers',
      'controllers',
      v,
      `1 to ${MAX_CONTROLLERS} unique DIDs (the caller's DID is added)`,
    );
  return list;
}

function checkClass(o: DomainInput): string | null | undefined {
  const c = o.class;
  const p = o.protocol;
  if (c !== undefined && p !== undefined && c !== p)
    throw fieldError('class_protocol_mismatch', 'protocol', p, `absent, or equal to class (${String(c)})`);
  const v = c ?? p;
  if (v === undefined) return undefined;
  if (v === null) return null;
  return requireDid(c !== undefined ? 'class' : 'protocol', v);
}

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;
const hasControlChars = (s: string) => CONTROL.test(s);

function checkAka(v: string | null | undefined): string | null {
  if (v === undefined || v === null) return null;
  if (v.trim() === '' || v.length > 256 || hasControlChars(v)) {
    throw fieldError(
      'invalid_also_known_as',
      'alsoKnownAs',
      v,
      'a non-empty string of at most 256 characters without control characters',
    );
  }
  return v;
}

function checkType(v: string | undefined): DomainType {
  if (v === undefined) throw fieldError('missing_field', 'type', v, DOMAIN_TYPES.join(', '));
  if (!(DOMAIN_TYPES as readonly unknown[]).includes(v))
    throw fieldError('invalid_type', 'type', v, `one of ${DOMAIN_TYPES.join(', ')} (exact case)`);
  return v as DomainType;
}

/** Checks date order and that validUntil is not already past. */
function checkDateOrder(validFrom: string | null, validUntil: string | null, now: number): void {
  const from = validFrom === null ? undefined : parseRfc3339(validFrom);
  const until = validUntil === null ? undefined : parseRfc3339(validUntil);
  if (from !== undefined && until !== undefined && until <= from) {
    throw registryError('dates_out_of_order', `validUntil ${validUntil} is not after validFrom ${validFrom}`, {
      field: 'validUntil',
      value: validUntil,
      valid: `a date-time after ${validFrom}`,
    });
  }
  if (until !== undefined && until <= now) {
    throw registryError('valid_until_past', `validUntil ${validUntil} is already past`, {
      field: 'validUntil',
      value: validUntil,
      valid: 'a future date-time',
    });
  }
}

/** Validates a create body (syntax, 400; date semantics, 422). */
export function validateCreate(raw: DomainInput, caller: string, now: number): DomainFields {
  const type = checkType(raw.type);
  const cls = checkClass(raw) ?? null;
  const controllers = checkControllers(raw.controllers, caller);
  const metadata = raw.metadata === undefined ? {} : checkMetadata(raw.metadata);
  const services = raw.services === undefined ? [] : checkServices(raw.services, type);
  const validFrom = checkDate('validFrom', raw.validFrom);
  const validUntil = checkDate('validUntil', raw.validUntil);
  const alsoKnownAs = checkAka(raw.alsoKnownAs);
  if (type !== 'Protocol' && cls === null)
    throw fieldError(
      'class_required',
      'class',
      undefined,
      'the DID of a registered, active Protocol domain (required except for type Protocol)',
    );
  checkDateOrder(validFrom, validUntil, now);
  return { type, class: cls, controllers, metadata, services, validFrom, validUntil, alsoKnownAs };
}

/** Validates a patch body against the current record; returns the new fields and whether verification is lost. */
export function applyPatch(
  current: DomainFields,
  raw: DomainInput,
  now: number,
): { fields: DomainFields; reverify: boolean; changed: string[] } {
  const next: DomainFields = { ...current };
  const changed: string[] = [];
  if (raw.type !== undefined) next.type = checkType(raw.type);
  const cls = checkClass(raw);
  if (cls !== undefined) next.class = cls;
  if (raw.controllers !== undefined) next.controllers = checkControllers(raw.controllers, undefined);
  if (raw.metadata !== undefined) next.metadata = checkMetadata(raw.metadata);
  if (raw.services !== undefined) next.services = checkServices(raw.services, next.type);
  if ('validFrom' in raw) next.validFrom = checkDate('validFrom', raw.validFrom);
  if ('validUntil' in raw) next.validUntil = checkDate('validUntil', raw.validUntil);
  if ('alsoKnownAs' in raw) next.alsoKnownAs = checkAka(raw.alsoKnownAs);
  if (next.type !== 'Protocol' && next.class === null)
    throw fieldError('class_required', 'class', null, 'the DID of a registered, active Protocol domain');
  if ('validFrom' in raw || 'validUntil' in raw) checkDateOrder(next.validFrom, next.validUntil, now);
  for (const k of Object.keys(next) as (keyof DomainFields)[]) {
    if (JSON.stringify(next[k]) !== JSON.stringify(current[k])) changed.push(k);
  }
  const reverify = changed.some((k) => k === 'type' || k === 'class' || k === 'controllers' || k === 'services');
  return { fields: next, reverify, changed };
}

/** Derived on read: active = not deactivated and now within validFrom..validUntil. */
export function isActive(d: Pick<Domain, 'state' | 'validFrom' | 'validUntil'>, now: number): boolean {
  if (d.state === 'deactivated') return false;
  if (d.validFrom !== null && (parseRfc3339(d.validFrom) ?? 0) > now) return false;
  if (d.validUntil !== null && (parseRfc3339(d.validUntil) ?? Infinity) <= now) return false;
  return true;
}

export function view(d: Domain, now: number): DomainView {
  const active = isActive(d, now);
  return { ...d, active, eligible: active && d.state === 'verified' };
}

/**
 * The public part of a domain (registry.md "Public reads"): what a browser
 * needs to reach the service a DID names (its endpoints), and whether to
 * trust it (type, class, state, active, eligible). Controllers, metadata and
 * history stay behind an API key.
 */
export interface PublicDomainView {
  id: string;
  type: DomainType;
  class: string | null;
  state: DomainState;
  active: boolean;
  eligible: boolean;
  services: Service[];
}

export function publicView(d: DomainView): PublicDomainView {
  return {
    id: d.id,
    type: d.type,
    class: d.class,
    state: d.state,
    active: d.active,
    eligible: d.eligible,
    services: d.services,
  };
}

/** The state machine of registry.md "States". */
type DomainTrigger = 'propose' | 'proposal_passed' | 'proposal_failed' | 'reverify' | 'deactivate';
export function transition(from: DomainState, trigger: DomainTrigger): DomainState {
  const bad = () =>
    registryError(
      from === 'deactivated' ? 'domain_deactivated' : 'invalid_state',
      `a ${from} domain cannot take '${trigger}'`,
      {
        details: { state: from, trigger },
      },
    );
  switch (trigger) {
    case 'propose':
      if (from === 'registered' || from === 'verification_rejected') return 'pending_verification';
      throw bad();
    case 'proposal_passed':
      if (from === 'pending_verification') return 'verified';
      throw bad();
    case 'proposal_failed':
      if (from === 'pending_verification') return 'verification_rejected';
      throw bad();
    case 'reverify':
      if (from === 'deactivated') throw bad();
      return from === 'verified' ? 'registered' : from;
    case 'deactivate':
      if (from === 'deactivated') throw bad();
      return 'deactivated';
  }
}
