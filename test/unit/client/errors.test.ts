/**
 * The client's errors are recognised across copies of the package: the
 * source and the built @oraclekit/client (two different classes, as in an
 * app that bundles two copies) agree through `isInstance`, where
 * `instanceof` does not.
 */
import { describe, expect, it } from 'vitest';
import * as src from '../../../src/client/errors.ts';
// the built package (npm run build comes first), typed by the .d.ts beside it
import * as built from '../../../src/client/dist/client/errors.js';

describe('client errors across two copies of the package', () => {
  it('isInstance holds where instanceof fails', () => {
    const e = new built.PaymentRequiredError('pay', ['c1'], [], {});
    expect(e instanceof src.OracleClientError).toBe(false);
    expect(src.OracleClientError.isInstance(e)).toBe(true);
    expect(src.PaymentRequiredError.isInstance(e)).toBe(true);
    expect(src.OracleUnreachableError.isInstance(e)).toBe(false);
    const u = new src.OracleUnreachableError('http://127.0.0.1:9', new Error('ECONNREFUSED'), 'registry');
    expect(built.OracleUnreachableError.isInstance(u)).toBe(true);
    expect(built.PaymentRequiredError.isInstance(u)).toBe(false);
    expect(src.OracleClientError.isInstance(new Error('plain'))).toBe(false);
    expect(src.OracleClientError.isInstance(null)).toBe(false);
  });
});
