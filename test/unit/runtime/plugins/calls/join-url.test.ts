/**
 * Where clients are told to join the embedded endpoint (connection.url): never a Host header the oracle could not
 * check.
 */
import { describe, expect, it } from 'vitest';
import { embeddedJoinUrl } from '../../../../../src/calls/livekit.ts';
import { isLoopbackAddress } from '../../../../../src/runtime/host-check.ts';

const forged = { protocol: 'http', host: 'evil.example:80', hostname: 'evil.example' };
const base = { publicUrl: undefined, prefix: '', namedHosts: false, isLoopback: isLoopbackAddress };

describe('the embedded endpoint’s join URL', () => {
  it('is the configured public URL, as a WebSocket URL, whatever the request says', () => {
    for (const bound of ['0.0.0.0', '127.0.0.1'])
      expect(embeddedJoinUrl({ ...base, publicUrl: 'https://oracle.example.org/', bound, req: forged })).toBe(
        'wss://oracle.example.org',
      );
    expect(
      embeddedJoinUrl({ ...base, publicUrl: 'ws://10.0.0.5:3000', prefix: '/o', bound: '0.0.0.0', req: forged }),
    ).toBe('ws://10.0.0.5:3000/o');
  });

  it('is never the Host header of an oracle on every interface that answers to any name', () => {
    expect(embeddedJoinUrl({ ...base, bound: '0.0.0.0', req: forged })).toBeUndefined();
    expect(embeddedJoinUrl({ ...base, bound: '::', req: forged })).toBeUndefined();
  });

  it('is the checked origin otherwise: a loopback bind, a loopback Host, or named hosts', () => {
    const local = { protocol: 'http', host: '127.0.0.1:3000', hostname: '127.0.0.1' };
    expect(embeddedJoinUrl({ ...base, bound: '127.0.0.1', req: local })).toBe('ws://127.0.0.1:3000');
    expect(embeddedJoinUrl({ ...base, bound: '0.0.0.0', req: local })).toBe('ws://127.0.0.1:3000');
    const named = { protocol: 'https', host: 'oracle.example.org', hostname: 'oracle.example.org' };
    expect(embeddedJoinUrl({ ...base, bound: '0.0.0.0', namedHosts: true, req: named })).toBe(
      'wss://oracle.example.org',
    );
  });
});
