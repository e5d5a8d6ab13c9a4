/** The daemon's auth helpers (src/daemon/http/auth.ts): the presented key's hash, remembered per connection. */
import { describe, expect, it } from 'vitest';
import type { FastifyRequest } from 'fastify';
import { keyHash } from '../../../../src/daemon/http/auth.ts';
import { sha256 } from '../../../../src/daemon/registry/common.ts';

const on = (socket: object | undefined) => ({ raw: { socket } }) as unknown as FastifyRequest;

describe('keyHash', () => {
  it('is the SHA-256 of the key, whichever keys follow each other on one connection', () => {
    const socket = {};
    const seq = ['ok_a_1', 'ok_a_1', 'ok_b_2', 'ok_a_1', 'ok_a_2', 'ok_a_22', 'ok_a_2'];
    for (const k of seq) {
      const req = on(socket);
      expect(keyHash(req, k)).toBe(sha256(k));
      expect(keyHash(req, k)).toBe(sha256(k)); // the same request again (rate limit, then auth)
    }
  });

  it('the same request presenting another key gets that key’s hash; no socket: hashed each time', () => {
    const req = on({});
    expect(keyHash(req, 'ok_x')).toBe(sha256('ok_x'));
    expect(keyHash(req, 'ok_y')).toBe(sha256('ok_y'));
    expect(keyHash(on(undefined), 'ok_z')).toBe(sha256('ok_z'));
  });

  it('connections do not share what they remember', () => {
    const a = {};
    const b = {};
    expect(keyHash(on(a), 'ok_1')).toBe(sha256('ok_1'));
    expect(keyHash(on(b), 'ok_2')).toBe(sha256('ok_2'));
    expect(keyHash(on(a), 'ok_2')).toBe(sha256('ok_2'));
    expect(keyHash(on(b), 'ok_1')).toBe(sha256('ok_1'));
  });
});
