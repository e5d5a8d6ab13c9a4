/**
 * One AI SDK schema per zod schema object. The SDK converts a zod schema to
 * JSON Schema lazily and memoises it inside the Schema object it makes; tool
 * maps are built once at boot, so keeping that object saves the conversion
 * of every tool's schema on every turn (it was ~3 ms of a turn's setup with
 * the bundled plugins; bench/runtime.ts).
 */
import { zodSchema } from 'ai';
import type { z } from 'zod';

const cache = new WeakMap<object, ReturnType<typeof zodSchema>>();

export function cachedSchema(schema: z.ZodType): ReturnType<typeof zodSchema> {
  let s = cache.get(schema);
  if (!s) {
    s = zodSchema(schema as never);
    cache.set(schema, s);
  }
  return s;
}
