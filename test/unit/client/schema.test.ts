import { describe, expect, it } from 'vitest';
import { z as z4 } from 'zod';
import { z as z3 } from 'zod3';
import { isZod3, isZod4, toJsonSchema } from '../../../src/client/react/schema.ts';

describe('browser tool schemas → JSON Schema', () => {
  it('zod 4: a non-empty object schema with required fields and descriptions', () => {
    const s = z4.object({
      city: z4.string().describe('the city'),
      days: z4.number().int().min(1).max(7).optional(),
      units: z4.enum(['c', 'f']),
    });
    expect(isZod4(s)).toBe(true);
    const j = toJsonSchema(s);
    expect(j).toMatchObject({
      type: 'object',
      properties: {
        city: { type: 'string', description: 'the city' },
        days: { type: 'integer', minimum: 1, maximum: 7 },
        units: { enum: ['c', 'f'] },
      },
    });
    expect(j.required).toEqual(['city', 'units']);
  });

  it('zod 3.x: the same schema converts to the same essentials', () => {
    const s = z3.object({
      city: z3.string().describe('the city'),
      days: z3.number().int().min(1).max(7).optional(),
      units: z3.enum(['c', 'f']),
    });
    expect(isZod3(s)).toBe(true);
    expect(isZod4(s)).toBe(false);
    const j = toJsonSchema(s);
    expect(j).toEqual({
      type: 'object',
      properties: {
        city: { type: 'string', description: 'the city' },
        days: { type: 'integer', minimum: 1, maximum: 7 },
        units: { type: 'string', enum: ['c', 'f'] },
      },
      required: ['city', 'units'],
    });
  });

  it('zod 3.x: arrays, unions, nullable, defaults, records, literals, effects', () => {
    const s = z3.object({
      tags: z3.array(z3.string()).min(1),
      v: z3.union([z3.string(), z3.number()]),
      n: z3.string().nullable(),
      d: z3.boolean().default(true),
      r: z3.record(z3.number()),
      l: z3.literal('x'),
      e: z3.string().transform((x) => x.length),
    });
    const j = toJsonSchema(s) as { properties: Record<string, unknown>; required: string[] };
    expect(j.properties).toEqual({
      tags: { type: 'array', items: { type: 'string' }, minItems: 1 },
      v: { anyOf: [{ type: 'string' }, { type: 'number' }] },
      n: { anyOf: [{ type: 'string' }, { type: 'null' }] },
      d: { type: 'boolean', default: true },
      r: { type: 'object', additionalProperties: { type: 'number' } },
      l: { const: 'x' },
      e: { type: 'string' },
    });
    expect(j.required).toEqual(['tags', 'v', 'n', 'r', 'l', 'e']);
  });

  it('plain JSON Schema passes through', () => {
    const j = { type: 'object', properties: { a: { type: 'string' } } };
    expect(toJsonSchema(j)).toBe(j);
  });
});
