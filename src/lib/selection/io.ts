/** Thin file helpers for the selection commands: JSON in, JSON out, errors naming the file. */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { selectionError } from './errors.ts';

export function readJsonFile(path: string, what: string, valid: string): unknown {
  if (!existsSync(path)) throw selectionError('file_not_found', what, path, valid);
  const text = readFileSync(path, 'utf8').replace(/^\uFEFF/, '');
  try {
    return JSON.parse(text);
  } catch (e) {
    throw selectionError('invalid_json', what, path, valid, { message: `${path}: not valid JSON (${(e as Error).message}); valid: ${valid}` });
  }
}

export function writeJsonFile(path: string, value: unknown): void {
  writeFileSync(path, JSON.stringify(value, null, 2) + '\n');
}
