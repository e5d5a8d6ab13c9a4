/**
 * Values in errors: an error's message renders its value
 * with bounded depth and length, and its body carries the value only when it
 * is small — a value nested 20,000 deep or megabytes wide cannot make an
 * error fail (it was a 500: the rendering recursed). And the codes toErrorBody
 * gives what the router and Node's HTTP parser refuse.
 */
import { describe, expect, it } from 'vitest';
import {
  boundedValue,
  HTTP_ERRORS,
  OracleKitError,
  showValue,
  toErrorBody,
  VALUE_LIMITS,
} from '../../../src/lib/errors.ts';
import { REGISTRY_ERRORS, fieldError } from '../../../src/lib/registry/errors.ts';

const deepArray = (n: number): unknown => {
  let v: unknown = [];
  for (let i = 0; i < n; i++) v = [v];
  return v;
};
const deepObject = (n: number): unknown => {
  let v: unknown = 1;
  for (let i = 0; i < n; i++) v = { a: v };
  return v;
};

describe('showValue', () => {
  it('small values render as before: their JSON', () => {
    expect(showValue(3)).toBe('3');
    expect(showValue('x')).toBe('"x"');
    expect(showValue(undefined)).toBe('(missing)');
    expect(showValue({ a: [1, 'b'] })).toBe('{"a":[1,"b"]}');
    expect(showValue(null)).toBe('null');
  });

  it('20,000 deep, 100,000 wide, long strings, cycles: bounded, never throws', () => {
    for (const v of [
      deepArray(20_000),
      deepObject(20_000),
      Array.from({ length: 100_000 }, (_, i) => i),
      'z'.repeat(1_000_000),
      { k: 'v'.repeat(10_000) },
      10n,
      Symbol('s'),
    ]) {
      const s = showValue(v);
      expect(s.length).toBeLessThanOrEqual(VALUE_LIMITS.length);
    }
    expect(showValue(deepArray(20_000))).toMatch(/^\[\[\[\[\.\.\.\]\]\]\]$/);
    expect(showValue(deepObject(20_000))).toBe('{"a":{"a":{"a":{...}}}}');
    expect(showValue('z'.repeat(1000))).toMatch(/^"z{75}"\.\.\.$/);
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = cyclic;
    expect(showValue(cyclic).length).toBeLessThanOrEqual(VALUE_LIMITS.length);
  });

  it("an area's field error on a hostile value: a short message and a body that serializes", () => {
    const e = fieldError('invalid_did', 'projectId', deepArray(20_000), 'a DID');
    expect(e.message.length).toBeLessThan(200);
    const body = JSON.stringify(e.toBody());
    expect(body.length).toBeLessThan(400);
    expect(JSON.parse(body)).toMatchObject({
      statusCode: 400,
      code: 'invalid_did',
      field: 'projectId',
      details: { value: expect.stringMatching(/^\[\[/), valid: 'a DID' },
    });
  });
});

describe('boundedValue (details.value)', () => {
  it('small values as they are; deep, wide or long ones as their bounded rendering', () => {
    expect(boundedValue({ a: [1, 2] })).toEqual({ a: [1, 2] });
    expect(boundedValue(deepArray(7))).toEqual(deepArray(7)); // 8 levels
    expect(typeof boundedValue(deepArray(8))).toBe('string');
    expect(typeof boundedValue(Array.from({ length: 1000 }, () => 1))).toBe('string');
    expect(boundedValue('s'.repeat(1024))).toBe('s'.repeat(1024));
    expect((boundedValue('s'.repeat(5000)) as string).length).toBeLessThanOrEqual(VALUE_LIMITS.length);
    expect(
      new OracleKitError({ status: 400, code: 'x', message: 'm', value: deepObject(50_000) }).toBody().details?.value,
    ).toBe('{"a":{"a":{"a":{...}}}}');
  });
});

describe('toErrorBody: what the router and the HTTP parser refuse', () => {
  it('each gets its code of HTTP_ERRORS (in the registry table too), never a framework body', () => {
    const cases: [string, number, string][] = [
      ['FST_ERR_BAD_URL', 400, 'invalid_url'],
      ['FST_ERR_MAX_PARAM_LENGTH', 414, 'url_too_long'],
      ['ERR_HTTP_REQUEST_TIMEOUT', 408, 'request_timeout'],
      ['HPE_HEADER_OVERFLOW', 431, 'headers_too_large'],
      ['HPE_INVALID_METHOD', 400, 'bad_request'],
      ['HPE_INVALID_CONSTANT', 400, 'bad_request'],
    ];
    for (const [fst, status, code] of cases) {
      const b = toErrorBody(Object.assign(new Error('framework text'), { code: fst, statusCode: status }));
      expect(b, fst).toMatchObject({ statusCode: status, code });
      expect(HTTP_ERRORS[code as keyof typeof HTTP_ERRORS].status).toBe(status);
      expect(REGISTRY_ERRORS[code as keyof typeof REGISTRY_ERRORS].status).toBe(status);
    }
    expect(HTTP_ERRORS.body_too_deep.status).toBe(400);
  });
});
