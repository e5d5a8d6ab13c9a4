import { describe, expect, it } from 'vitest';
import { bridgeTools, clientSchema } from '../../../../../src/runtime/plugins/portal/bridge.ts';
import type { PluginHost } from '../../../../../src/runtime/plugin.ts';

describe('clientSchema: a client JSON Schema as the tool input schema', () => {
  it('validates with the client schema', () => {
    const s = clientSchema({ type: 'object', properties: { n: { type: 'integer', minimum: 1 } }, required: ['n'] });
    expect(s.safeParse({ n: 2 }).success).toBe(true);
    expect(s.safeParse({ n: 0 }).success).toBe(false);
    expect(s.safeParse({}).success).toBe(false);
  });
  it('treats {properties} without a type as an object', () => {
    const s = clientSchema({ properties: { q: { type: 'string' } }, required: ['q'] });
    expect(s.safeParse({ q: 'x' }).success).toBe(true);
    expect(s.safeParse({ q: 1 }).success).toBe(false);
  });
  it('accepts any object when the schema is missing, not an object schema, or unusable', () => {
    for (const bad of [
      undefined,
      null,
      'x',
      [],
      { type: 'string' },
      { type: 'object', properties: { a: { $ref: '#/nowhere' } } },
    ]) {
      const s = clientSchema(bad);
      expect(s.safeParse({ anything: 1 }).success).toBe(true);
    }
  });
});

describe('bridgeTools', () => {
  const host = { emitToSession: () => true, awaitClientResult: () => Promise.resolve(1) } as unknown as PluginHost;
  it('keeps only valid, unique names', () => {
    const t = bridgeTools(
      [
        { name: 'ok_name', description: 'a', schema: {} },
        { name: 'bad name', description: 'b', schema: {} },
        { name: 'ok_name', description: 'dup', schema: {} },
        { name: 'x'.repeat(65), description: 'long', schema: {} },
      ],
      { outEvent: 'browser_tool_call', what: 'browser tool', timeoutMs: 100, host },
    );
    expect(Object.keys(t)).toEqual(['ok_name']);
    expect(t.ok_name!.description).toBe('a');
    expect(t.ok_name!.timeoutMs).toBe(2100);
  });
});
