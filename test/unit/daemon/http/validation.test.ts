/* eslint-disable @typescript-eslint/no-explicit-any -- the JSON replies under test are compared whole */
/**
 * The daemon's validator compiler (src/daemon/server.ts) runs a body
 * schema's rule directly when it has one (schemas.ts directRules: the
 * sampling body), and zod's validation of the schema only when the rule
 * refuses. That must not change any reply: the same bodies are sent to a
 * daemon built with the direct rule and to one built without it (zod
 * alone), and the replies compared — errors whole, designs without their
 * fresh id and time.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startInProcess, type InProcess } from '../harness.ts';
import { directRules, samplingBody } from '../../../../src/daemon/http/schemas.ts';

const DESIGN = { projectId: 'did:example:p', population: 1000, expectedMean: 2, expectedSD: 1, dropoutRate: 0.1 };

const BODIES: unknown[] = [
  DESIGN,
  { ...DESIGN, expectedMean: undefined, expectedSD: undefined, expectedProportion: 0.3 },
  {
    ...DESIGN,
    stratification: {
      enabled: true,
      strata: [
        { name: 'a', weight: 0.4 },
        { name: 'b', weight: 0.6, mean: 3, sd: 2 },
      ],
    },
  },
  { ...DESIGN, population: 5 },
  { ...DESIGN, expectedSD: 1e160 },
  { ...DESIGN, projectId: 'not a did' },
  { ...DESIGN, projectId: undefined },
  { ...DESIGN, dropoutRate: 15 },
  { ...DESIGN, confidence: 0.9 },
  { ...DESIGN, dropout: 0.1 },
  { ...DESIGN, population: '1000' },
  { ...DESIGN, population: null },
  {},
  [],
  [DESIGN],
  'text',
  42,
  null,
];

describe('the direct rule of a body schema', () => {
  let direct: InProcess;
  let zodOnly: InProcess;
  let keys: [string, string];

  beforeAll(async () => {
    direct = await startInProcess();
    const rule = directRules.get(samplingBody)!;
    expect(rule).toBeTypeOf('function');
    directRules.delete(samplingBody); // routes compile their validators as the server is built
    try {
      zodOnly = await startInProcess();
    } finally {
      directRules.set(samplingBody, rule);
    }
    keys = [await direct.key('did:example:m', 'member'), await zodOnly.key('did:example:m', 'member')];
  });
  afterAll(async () => {
    await direct?.close();
    await zodOnly?.close();
  });

  it('gives every body the same reply as zod alone', async () => {
    let created = 0;
    for (const body of BODIES) {
      const [a, b] = await Promise.all([
        direct.call('POST', '/v1/sampling', { key: keys[0], body }),
        zodOnly.call('POST', '/v1/sampling', { key: keys[1], body }),
      ]);
      expect(a.status, JSON.stringify(body)).toBe(b.status);
      if (a.status === 201) {
        created++;
        const strip = (r: any) => ({ ...r, designId: undefined, createdAt: undefined });
        expect(strip(a.body)).toEqual(strip(b.body));
      } else {
        expect(a.body, JSON.stringify(body)).toEqual(b.body);
        expect(a.body.statusCode).toBeGreaterThanOrEqual(400);
      }
    }
    // the list holds valid and invalid bodies both
    expect(created).toBeGreaterThanOrEqual(3);
    expect(created).toBeLessThan(BODIES.length);
  });
});
