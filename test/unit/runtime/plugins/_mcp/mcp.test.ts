import { parseEnv } from '../../../../../src/lib/env.ts';
import { describe, expect, it } from 'vitest';
import { scrub, toolOutput } from '../../../../../src/runtime/plugins/_mcp/client.ts';
import { mcpEnvSchema, readMcpEnv, zodFromJsonSchema } from '../../../../../src/runtime/plugins/_mcp/plugin.ts';

describe('MCP tool results for the model', () => {
  it('text, JSON text, structured content, several blocks, non-text blocks', () => {
    expect(toolOutput('m', 't', { content: [{ type: 'text', text: 'hello' }] })).toBe('hello');
    expect(toolOutput('m', 't', { content: [{ type: 'text', text: '{"a":1}' }] })).toEqual({ a: 1 });
    expect(toolOutput('m', 't', { content: [{ type: 'text', text: '42' }] })).toBe('42');
    expect(toolOutput('m', 't', { content: [{ type: 'text', text: 'x' }], structuredContent: { b: 2 } })).toEqual({
      b: 2,
    });
    expect(
      toolOutput('m', 't', {
        content: [
          { type: 'text', text: 'a' },
          { type: 'image', mimeType: 'image/png', data: '…' },
        ],
      }),
    ).toBe('a\n[image image/png omitted]');
  });
  it('isError becomes a thrown error naming the plugin and tool', () => {
    expect(() =>
      toolOutput('sandbox', 'run_code', { content: [{ type: 'text', text: 'boom' }], isError: true }),
    ).toThrow('sandbox tool run_code failed: boom');
  });
  it('scrubs tokens and bearer credentials from messages', () => {
    expect(scrub('bad token abcd1234 in Authorization: Bearer abcd1234', ['abcd1234'])).toBe(
      'bad token *** in Authorization: Bearer ***',
    );
    // a placeholder in a server's hint is no credential (it became "Bearer *** key>")
    expect(scrub('send Authorization: Bearer <API key> (create one)', [])).toBe(
      'send Authorization: Bearer <API key> (create one)',
    );
    expect(scrub('rejected Bearer ok_1a2b_Zm9v-YmFy_x== and bearer eyJhbGciOi.eyJzdWIi.sig', [])).toBe(
      'rejected Bearer *** and bearer ***',
    );
  });
});

describe('MCP env and schemas', () => {
  it('defaults and the tool list; a blank token is unset (the one env rule)', () => {
    const parsed = parseEnv(mcpEnvSchema('X', 5000), {
      X_MCP_URL: 'http://h/mcp',
      X_MCP_TOKEN: '  ',
      X_MCP_TOOLS: ' a, b ',
    });
    if (!parsed.success) throw parsed.error;
    const env = parsed.data;
    expect(readMcpEnv('X', env)).toEqual({ url: 'http://h/mcp', token: undefined, timeoutMs: 5000, tools: ['a', 'b'] });
    expect(
      readMcpEnv('X', mcpEnvSchema('X', 5000).parse({ X_MCP_URL: 'https://h', X_MCP_TOOLS: '*' })).tools,
    ).toBeUndefined();
  });
  it('JSON Schema → zod, with a permissive fallback', () => {
    const s = zodFromJsonSchema({
      type: 'object',
      properties: { q: { type: 'string' } },
      required: ['q'],
      $schema: 'http://json-schema.org/draft-07/schema#',
    });
    expect(s.safeParse({ q: 'x' }).success).toBe(true);
    expect(s.safeParse({}).success).toBe(false);
    expect(
      zodFromJsonSchema({ type: 'object', properties: { a: { $ref: '#/nowhere' } } }).safeParse({ any: 1 }).success,
    ).toBe(true);
  });
});
