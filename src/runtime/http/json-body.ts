/**
 * JSON bodies: fastify's own parser (`__proto__` and constructor.prototype
 * refused by the server's options), plus the body's depth checked as it is
 * parsed, before anything reads it (validation, the Idempotency-Key hash, an
 * error's value): 400 body_too_deep naming the top-level field. A JSON body
 * cannot nest deeper than half its length, so short bodies skip the walk.
 */
import type { FastifyInstance, preValidationHookHandler } from 'fastify';
import { registryError } from '../../lib/registry/errors.ts';
import type { OracleKitError } from '../../lib/errors.ts';
import { MAX_BODY_DEPTH, tooDeep } from './limits.ts';

/** Replaces the application/json parser of `app` with fastify's default one plus the depth check. */
export function installJsonParser(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (req, body: string | Buffer, done) => {
    parseJson(req, body as string, (err: Error | null, value?: unknown) => {
      if (err) return done(err, undefined);
      const deep = body.length < 2 * MAX_BODY_DEPTH ? undefined : depthError(value);
      if (deep) return done(deep, undefined);
      done(null, value);
    });
  });
}

/**
 * The same check as a preValidation hook, for a scope whose plugin may parse
 * JSON with a parser of its own (the oracle runtime, mounted by server.ts).
 */
export const checkBodyDepth: preValidationHookHandler = (req, _reply, done) => {
  const body = req.body;
  if (
    typeof body !== 'object' ||
    body === null ||
    Number(req.headers['content-length'] ?? Infinity) < 2 * MAX_BODY_DEPTH
  )
    return done();
  done(depthError(body));
};

/** 400 body_too_deep naming the top-level field, when a parsed JSON body nests deeper than MAX_BODY_DEPTH. */
function depthError(body: unknown): OracleKitError | undefined {
  const deep = tooDeep(body);
  if (!deep) return undefined;
  const field = deep.field || 'body';
  return registryError('body_too_deep', `${field} nests arrays and objects deeper than ${MAX_BODY_DEPTH} levels`, {
    field,
    details: { maxDepth: MAX_BODY_DEPTH },
  });
}
