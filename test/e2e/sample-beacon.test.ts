/**
 * `oraclekit sample select beacon` through the built CLI against a drand relay of our own on
 * 127.0.0.1 that serves a real signed quicknet round (test/fixtures/drand-rounds.json): the round is
 * fetched by the committed chain and round, its BLS signature verified, and saved as the file
 * `sample select draw --beacon` takes; a relay that serves a forged round, or none that answers, writes
 * nothing.
 */
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { drawFlags, sample, selectionFiles } from '../helpers/sample-cli.ts';
import { freePort, listenLoopback } from '../helpers/loopback.ts';
import { commitForRealRound, QUICKNET, roundJson } from '../helpers/real-rounds.ts';
import { loadDesign } from '../../src/lib/selection/design.ts';
import { PINNED_CHAINS } from '../../src/lib/beacon/drand.ts';

const dir = mkdtempSync(join(tmpdir(), 'okit-beacon-'));
const F = selectionFiles(dir);
const { p } = F;
const hash = PINNED_CHAINS.quicknet.hash;
let good: Awaited<ReturnType<typeof listenLoopback>>;
let forged: Awaited<ReturnType<typeof listenLoopback>>;
const asked: string[] = [];

beforeAll(async () => {
  const serve = (body: string) =>
    createServer((req, res) => {
      asked.push(req.url ?? '');
      if (req.url === `/${hash}/public/${QUICKNET.round}`) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(body);
      } else {
        res.writeHead(404);
        res.end();
      }
    });
  good = await listenLoopback(serve(roundJson(QUICKNET)));
  const bad = JSON.parse(roundJson(QUICKNET));
  bad.signature = bad.signature.slice(0, -2) + (bad.signature.endsWith('00') ? '01' : '00');
  forged = await listenLoopback(serve(JSON.stringify(bad)));
  const rows = ['household_id'];
  for (let i = 0; i < 100; i++) rows.push(`H${i}`);
  writeFileSync(p('frame.csv'), rows.join('\n') + '\n');
  await commitForRealRound({
    design: loadDesign({ population: 100, expectedMean: 2, expectedSD: 0.5, dropoutRate: 0 }),
    framePath: p('frame.csv'),
    out: p('commitment.json'),
  });
});
afterAll(async () => {
  await good.close();
  await forged.close();
});

describe('sample select beacon', () => {
  it('fetches the committed round from a relay, verifies its signature and saves what draw takes', async () => {
    const r = await sample('select beacon', {
      commitment: p('commitment.json'),
      relay: good.url,
      out: p('round.json'),
    });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^OK round 32254977 of drand quicknet: BLS signature verified/);
    expect(asked).toContain(`/${hash}/public/${QUICKNET.round}`);
    const saved = JSON.parse(readFileSync(p('round.json'), 'utf8'));
    expect(saved).toEqual(JSON.parse(roundJson(QUICKNET)));
    const draw = await sample('select draw', drawFlags(F));
    expect(draw.code).toBe(0);
  });

  it('--round and --chain without a commitment; the relays are tried in order', async () => {
    const closed = `http://127.0.0.1:${await freePort()}`;
    const r = await sample('select beacon', {
      round: String(QUICKNET.round),
      chain: 'quicknet',
      relay: [closed, good.url],
      out: p('round2.json'),
      json: true,
    });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({
      file: p('round2.json'),
      chainHash: hash,
      round: { round: QUICKNET.round },
    });
  });

  it('a relay serving a forged signature: invalid_beacon_signature (exit 5), nothing written', async () => {
    const r = await sample('select beacon', {
      commitment: p('commitment.json'),
      relay: forged.url,
      out: p('forged.json'),
    });
    expect(r.code).toBe(5);
    expect(r.stderr).toContain('[invalid_beacon_signature]');
    expect(existsSync(p('forged.json'))).toBe(false);
  });

  it('no relay answers: beacon_unreachable (exit 9) with the URL to fetch on a connected device', async () => {
    const closed = `http://127.0.0.1:${await freePort()}`;
    const r = await sample('select beacon', { commitment: p('commitment.json'), relay: closed, out: p('none.json') });
    expect(r.code).toBe(9);
    expect(r.stderr).toContain('[beacon_unreachable]');
    expect(r.stderr).toContain(`https://api.drand.sh/${hash}/public/${QUICKNET.round}`);
    expect(existsSync(p('none.json'))).toBe(false);
  });

  it('a round not produced yet: round_not_produced (exit 4), saying when', async () => {
    const r = await sample('select beacon', { round: '999999999', relay: good.url, out: p('later.json') });
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(/\[round_not_produced\] round 999999999 is produced at \d{4}-/);
  });
});
