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

/** A zod 3 schema as JSON Schema, with its description. */
function zod3ToJson(s: Zod3Like): Json {
  const out = zod3Type(s._def);
  if (s._def.description) out.description = s._def.description;
  return out;
}

const inner = (x: unknown) => zod3ToJson(x as Zod3Like);

function zod3Type(def: Zod3Def): Json {
  switch (def.typeName) {
    case 'ZodObject':
      return zod3Object(def);
    case 'ZodString':
      return zod3String(def);
    case 'ZodNumber':
      return zod3Number(def);
    case 'ZodBigInt':
      return { type: 'integer' };
    case 'ZodBoolean':
      return { type: 'boolean' };
    case 'ZodDate':
      return { type: 'string', format: 'date-time' };
    case 'ZodNull':
      return { type: 'null' };
    case 'ZodLiteral':
      return { const: def.value };
    case 'ZodEnum':
      return { type: 'string', enum: def.values as string[] };
    case 'ZodNativeEnum':
      return { enum: Object.values(def.values as object) };
    case 'ZodArray':
      return zod3Array(def);
    case 'ZodTuple':
      return { type: 'array', prefixItems: (def.items as unknown[]).map(inner) };
    case 'ZodRecord':
      return { type: 'object', additionalProperties: inner(def.valueType) };
    case 'ZodUnion':
    case 'ZodDiscriminatedUnion': {
      const opts = (
        Array.isArray(def.options) ? def.options : [...(def.options as Map<unknown, unknown>).values()]
      ) as unknown[];
      return { anyOf: opts.map(inner) };
    }
    case 'ZodIntersection':
      return { allOf: [inner(def.left), inner(def.right)] };
    case 'ZodOptional':
      return inner(def.innerType);
    case 'ZodNullable':
      return { anyOf: [inner(def.innerType), { type: 'null' }] };
    case 'ZodDefault':
      return { ...inner(def.innerType), default: (def.defaultValue as () => unknown)() };
    case 'ZodCatch':
    case 'ZodReadonly':
    case 'ZodBranded':
      return inner(def.innerType ?? def.type);
    case 'ZodEffects':
      return inner(def.schema);
    case 'ZodLazy':
      return inner((def.getter as () => unknown)());
    case 'ZodPipeline':
      return inner(def.in);
    default:
      return {}; // any, unknown and the rest: no constraint
  }
}

function zod3Object(def: Zod3Def): Json {
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
  return out;
}

function zod3String(def: Zod3Def): Json {
  const out: Json = { type: 'string' };
  for (const c of (def.checks as { kind: string; value?: number; regex?: RegExp }[] | undefined) ?? []) {
    if (c.kind === 'min') out.minLength = c.value;
    else if (c.kind === 'max') out.maxLength = c.value;
    else if (c.kind === 'email') out.format = 'email';
    else if (c.kind === 'url') out.format = 'uri';
    else if (c.kind === 'uuid') out.format = 'uuid';
    else if (c.kind === 'regex' && c.regex) out.pattern = c.regex.source;
  }
  return out;
}

function zod3Number(def: Zod3Def): Json {
  const out: Json = { type: 'number' };
  for (const c of (def.checks as { kind: string; value?: number; inclusive?: boolean }[] | undefined) ?? []) {
    if (c.kind === 'int') out.type = 'integer';
    else if (c.kind === 'min') out[c.inclusive ? 'minimum' : 'exclusiveMinimum'] = c.value;
    else if (c.kind === 'max') out[c.inclusive ? 'maximum' : 'exclusiveMaximum'] = c.value;
  }
  return out;
}

function zod3Array(def: Zod3Def): Json {
  const out: Json = { type: 'array', items: inner(def.type) };
  const min = (def.minLength as { value: number } | null)?.value;
  const max = (def.maxLength as { value: number } | null)?.value;
  if (min !== undefined) out.minItems = min;
  if (max !== undefined) out.maxItems = max;
  return out;
}

function isOptional3(s: Zod3Like): boolean {
  const t = s._def.typeName;
  return t === 'ZodOptional' || t === 'ZodDefault' || (t === 'ZodEffects' && isOptional3(s._def.schema as Zod3Like));
}
