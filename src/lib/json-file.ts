/**
 * The one way a configuration file the CLI reads (identity.json,
 * settings.json, the daemon's discovery file) becomes a value: its text
 * through its zod schema. A failure names the file, the field, the value and
 * what the schema wanted; a secret field's value is never shown.
 */
import type { z } from 'zod';

export interface JsonFileProblem {
  /** "<file> is not valid JSON" or "<file>: <field> = <value> is invalid: <why>". */
  message: string;
  field?: string;
  value?: unknown;
}

export type JsonFileResult<T> = { ok: true; value: T } | { ok: false; problem: JsonFileProblem };

/** Fields whose values never appear in a message. */
const SECRET = /mnemonic|key|token|password/i;

export function parseJsonFile<S extends z.ZodType>(path: string, text: string, schema: S): JsonFileResult<z.infer<S>> {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return { ok: false, problem: { message: `${path} is not valid JSON` } };
  }
  return checkJsonFile(path, raw, schema);
}

/** A file's parsed JSON through its schema (for a file another library reads, e.g. conf's settings.json). */
export function checkJsonFile<S extends z.ZodType>(path: string, raw: unknown, schema: S): JsonFileResult<z.infer<S>> {
  const r = schema.safeParse(raw);
  if (r.success) return { ok: true, value: r.data };
  const issue = r.error.issues[0]!;
  const field = issue.path.map(String).join('.') || '(root)';
  let value: unknown = raw;
  for (const p of issue.path) value = (value as Record<PropertyKey, unknown> | undefined)?.[p as PropertyKey];
  const shown = SECRET.test(field) ? '(hidden)' : (JSON.stringify(value) ?? 'missing');
  return {
    ok: false,
    problem: {
      message: `${path}: ${field} = ${shown} is invalid: ${issue.message}`,
      field,
      ...(SECRET.test(field) ? {} : { value }),
    },
  };
}
