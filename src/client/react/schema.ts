/**
 * Browser tool and action schemas → JSON Schema, for zod 4 (`_zod`, converted
 * with zod's own z.toJSONSchema), zod 3.x (`_def.typeName`, converted here:
 * zod 3 has no converter of its own) and plain JSON Schema objects (passed
 * through). The app's zod instance is never imported: the schema object
 * carries everything needed.
 */
import { toJSONSchema } from 'zod';

type Json = Record<string, unknown>;
interface Zod3Def {
  typeName?: string;
  description?: string;
  [k: string]: unknown;
}
interface Zod3Like {
  _def: Zod3Def;
  description?: string;
}

export function isZod4(s: unknown): boolean {
  return !!s && typeof s === 'object' && '_zod' in s;
}
export function isZod3(s: unknown): s is Zod3Like {
  return (
    !!s && typeof s === 'object' && '_def' in s && !('_zod' in s) && typeof (s as Zod3Like)._def?.typeName === 'string'
  );
}

export function toJsonSchema(schema: unknown): Json {
  if (schema == null) return { type: 'object', properties: {} };
  if (isZod4(schema)) {
    const out = toJSONSchema(schema as Parameters<typeof toJSONSchema>[0], {
      unrepresentable: 'any',
      io: 'input',
    }) as Json;
    delete out.$schema;
    return out;
  }
  if (isZod3(schema)) return zod3ToJson(schema);
  if (typeof schema === 'object') return schema as Json;
  throw new TypeError('a browser tool schema must be a zod (3 or 4) schema or a JSON Schema object');
}

function withDesc(out: Json, def: Zod3Def): Json {
  if (def.description) out.description = def.description;
  return out;
}

function zod3ToJson(s: Zod3Like): Json {
  const def = s._def;
  const inner = (x: unknown) => zod3ToJson(x as Zod3Like);
  switch (def.typeName) {
    case 'ZodObject': {
      const shape = (
        typeof def.shape === 'function' ? (def.shape as () => Record<string, Zod3Like>)() : def.shape
      ) as Record<string, Zod3Like>;
      const properties: Record<string, Json> = {};
      const required: string[] = [];
      for (const [k, v] of Object.entries(shape)) {
        properties[k] = inner(v);
        if (!isOptional3(v)) required.push(k);
      }
      const out: Json = { type: 'object', properties };
      if (required.length) out.required = required;
      if ((def.unknownKeys as string | undefined) === 'strict') out.additionalProperties = false;
      return withDesc(out, def);
    }
    case 'ZodString': {
      const out: Json = { type: 'string' };
      for (const c of (def.checks as { kind: string; value?: number; regex?: RegExp }[] | undefined) ?? []) {
        if (c.kind === 'min') out.minLength = c.value;
        else if (c.kind === 'max') out.maxLength = c.value;
        else if (c.kind === 'email') out.format = 'email';
        else if (c.kind === 'url') out.format = 'uri';
        else if (c.kind === 'uuid') out.format = 'uuid';
        else if (c.kind === 'regex' && c.regex) out.pattern = c.regex.source;
      }
      return withDesc(out, def);
    }
    case 'ZodNumber': {
      const out: Json = { type: 'number' };
      for (const c of (def.checks as { kind: string; value?: number; inclusive?: boolean }[] | undefined) ?? []) {
        if (c.kind === 'int') out.type = 'integer';
        else if (c.kind === 'min') out[c.inclusive ? 'minimum' : 'exclusiveMinimum'] = c.value;
        else if (c.kind === 'max') out[c.inclusive ? 'maximum' : 'exclusiveMaximum'] = c.value;
      }
      return withDesc(out, def);
    }
    case 'ZodBigInt':
      return withDesc({ type: 'integer' }, def);
    case 'ZodBoolean':
      return withDesc({ type: 'boolean' }, def);
    case 'ZodDate':
      return withDesc({ type: 'string', format: 'date-time' }, def);
    case 'ZodNull':
      return withDesc({ type: 'null' }, def);
    case 'ZodLiteral':
      return withDesc({ const: def.value }, def);
    case 'ZodEnum':
      return withDesc({ type: 'string', enum: def.values as string[] }, def);
    case 'ZodNativeEnum':
      return withDesc({ enum: Object.values(def.values as object) }, def);
    case 'ZodArray': {
      const out: Json = { type: 'array', items: inner(def.type) };
      if ((def.minLength as { value: number } | null)?.value !== undefined)
        out.minItems = (def.minLength as { value: number }).value;
      if ((def.maxLength as { value: number } | null)?.value !== undefined)
        out.maxItems = (def.maxLength as { value: number }).value;
      return withDesc(out, def);
    }
    case 'ZodTuple':
      return withDesc({ type: 'array', prefixItems: (def.items as unknown[]).map(inner) }, def);
    case 'ZodRecord':
      return withDesc({ type: 'object', additionalProperties: inner(def.valueType) }, def);
    case 'ZodUnion':
    case 'ZodDiscriminatedUnion': {
      const opts = (
        Array.isArray(def.options) ? def.options : [...(def.options as Map<unknown, unknown>).values()]
      ) as unknown[];
      return withDesc({ anyOf: opts.map(inner) }, def);
    }
    case 'ZodIntersection':
      return withDesc({ allOf: [inner(def.left), inner(def.right)] }, def);
    case 'ZodOptional':
      return withDesc(inner(def.innerType), def);
    case 'ZodNullable':
      return withDesc({ anyOf: [inner(def.innerType), { type: 'null' }] }, def);
    case 'ZodDefault':
      return withDesc({ ...inner(def.innerType), default: (def.defaultValue as () => unknown)() }, def);
    case 'ZodCatch':
    case 'ZodReadonly':
    case 'ZodBranded':
      return withDesc(inner(def.innerType ?? def.type), def);
    case 'ZodEffects':
      return withDesc(inner(def.schema), def);
    case 'ZodLazy':
      return withDesc(inner((def.getter as () => unknown)()), def);
    case 'ZodPipeline':
      return withDesc(inner(def.in), def);
    default:
      return withDesc({}, def); // any, unknown and the rest: no constraint
  }
}

function isOptional3(s: Zod3Like): boolean {
  const t = s._def.typeName;
  return t === 'ZodOptional' || t === 'ZodDefault' || (t === 'ZodEffects' && isOptional3(s._def.schema as Zod3Like));
}
