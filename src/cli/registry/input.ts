/**
 * Flag values of the registry commands turned into request bodies, with errors naming the flag, the value and what is
 * valid.
 */
import { readFileSync } from 'node:fs';
import type { Service } from '../../lib/registry/types.ts';
import { cliError } from '../errors.ts';

function parseServiceFlag(s: string): Service {
  const m = /^([^=]+)=([^,]+),(.+)$/.exec(s);
  if (!m)
    throw cliError('invalid_service', `--service ${s} is not id=type,url`, {
      field: 'service',
      value: s,
      valid: 'id=type,url, e.g. "#api=oracleService,https://host"',
    });
  return { id: m[1]!.trim(), type: m[2]!.trim(), serviceEndpoint: m[3]!.trim() };
}

/** --metadata: a JSON object. */
function parseMetadataFlag(s: string): Record<string, unknown> {
  let v: unknown;
  try {
    v = JSON.parse(s);
  } catch (e) {
    throw cliError('invalid_metadata', `--metadata is not JSON: ${(e as Error).message}`, {
      field: 'metadata',
      value: s,
      valid: 'a JSON object, e.g. \'{"name": "Kisumu stoves"}\'',
    });
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v))
    throw cliError('invalid_metadata', `--metadata is not a JSON object`, {
      field: 'metadata',
      value: s,
      valid: 'a JSON object, e.g. \'{"name": "Kisumu stoves"}\'',
    });
  return v as Record<string, unknown>;
}

/** --package: a JSON file with the entity package of a verification proposal. */
export function readPackageFile(path: string): unknown {
  const valid = 'a JSON file {documents: [{url, hash}]}';
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw cliError(
      'unreadable_file',
      `cannot read --package ${JSON.stringify(path)}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`,
      { field: 'package', value: path, valid },
    );
  }
  try {
    return JSON.parse(text);
  } catch (e) {
    throw cliError('invalid_package', `--package ${path}: ${(e as Error).message}`, {
      field: 'package',
      value: path,
      valid,
    });
  }
}

/** The domain fields of `domain register` and `domain update` as flags. */
interface DomainFlags {
  type?: string;
  class?: string;
  name?: string;
  metadata?: string;
  'valid-from'?: string;
  'valid-until'?: string;
  controller?: string[];
  service?: string[];
  'also-known-as'?: string;
}

/**
 * The body of POST /v1/domains or PATCH /v1/domains/:did from the flags,
 * checked before any request. --name sets metadata.name, merged into
 * --metadata when given (`domain update` merges it into the current
 * metadata otherwise).
 */
export function domainBody(f: DomainFlags): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  if (f.type) body.type = f.type;
  if (f.class) body.class = f.class;
  let metadata = f.metadata ? parseMetadataFlag(f.metadata) : undefined;
  if (f.name) metadata = { ...(metadata ?? {}), name: f.name };
  if (metadata) body.metadata = metadata;
  if (f['valid-from']) body.validFrom = f['valid-from'];
  if (f['valid-until']) body.validUntil = f['valid-until'];
  if (f.controller) body.controllers = f.controller;
  if (f.service) body.services = f.service.map(parseServiceFlag);
  if (f['also-known-as']) body.alsoKnownAs = f['also-known-as'];
  return body;
}
