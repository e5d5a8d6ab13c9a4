/**
 * The one way a configuration file the CLI reads (identity.json,
 * settings.json, daemon.json, the daemon's discovery file) becomes a value: its text
 * through its zod schema. A failure names the file, the field, the value and
 * what the schema wanted; a secret field's value is never shown.
 */
import type { z } from 'zod';
import { showValue } from './errors.ts';

export interface JsonFileProblem {
  /**
   * "<file> is not valid JSON", "<file>: key <field> is unknown" or "<file>: <field> = <value> is invalid: <why>"
   * (the JSON parser's own message is left out: it may quote the file's text, secrets included).
   */
  message: string;
  /** The field as a path: `wallet.did`, `voters[0].did`; `(root)` for the whole file. */
  field?: string;
  value?: unknown;
  /** What is valid there: the schema's `params.valid` when it gives one, else its message. */
  valid?: string;
  /** A key the schema does not know (a strict object). */
  unknownKey?: boolean;
}

type JsonFileResult<T> = { ok: true; value: T } | { ok: false; problem: JsonFileProblem };

interface JsonFileOptions {
  /** How a value is shown in the problem (e.g. a URL without its password); secret fields are hidden anyway. */
  shown?: (field: string, value: unknown) => unknown;
}

/** Fields whose values never appear in a message. */
const SECRET = /mnemonic|key|token|password/i;

export function parseJsonFile<S extends z.ZodType>(
  path: string,
  text: string,
  schema: S,
  o: JsonFileOptions = {},
): JsonFileResult<z.infer<S>> {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return { ok: false, problem: { message: `${path} is not valid JSON` } };
  }
  return checkJsonFile(path, raw, schema, o);
}

/** A file's parsed JSON through its schema (for a file another library reads, e.g. conf's settings.json). */
export function checkJsonFile<S extends z.ZodType>(
  path: string,
  raw: unknown,
  schema: S,
  o: JsonFileOptions = {},
): JsonFileResult<z.infer<S>> {
  const r = schema.safeParse(raw);
  if (r.success) return { ok: true, value: r.data };
  const issue = r.error.issues[0]!;
  let field = issue.path
    .map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`))
    .join('')
    .replace(/^\./, '');
  let value: unknown = raw;
  for (const p of issue.path) value = (value as Record<PropertyKey, unknown> | undefined)?.[p as PropertyKey];
  if (issue.code === 'unrecognized_keys') {
    const key = issue.keys[0]!;
    field = field ? `${field}.${key}` : key;
    value = (value as Record<string, unknown> | undefined)?.[key];
  }
  field ||= '(root)';
  const secret = SECRET.test(field);
  const shownValue = secret ? undefined : o.shown ? o.shown(field, value) : value;
  const valid = (issue as { params?: { valid?: string } }).params?.valid ?? issue.message;
  if (issue.code === 'unrecognized_keys')
    return {
      ok: false,
      problem: {
        message: `${path}: key ${field} is unknown`,
        field,
        ...(secret ? {} : { value: shownValue }),
        unknownKey: true,
      },
    };
  return {
    ok: false,
    problem: {
      message: `${path}: ${field} = ${secret ? '(hidden)' : showValue(shownValue)} is invalid: ${issue.message}`,
      field,
      ...(secret ? {} : { value: shownValue }),
      valid,
    },
  };
}
