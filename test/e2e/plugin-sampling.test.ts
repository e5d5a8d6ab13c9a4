import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../helpers/runtime-harness.ts';
import { callTool, lastToolResult, say } from '../helpers/scripted-model-server.ts';
import { computeDesign } from '../../src/lib/sampling/design.ts';
import { recalculate } from '../../src/lib/sampling/recalc.ts';
import type { AnyEvent } from '../../src/lib/protocol/index.ts';
import { NORTH_SOUTH_55_45, stratifiedInput } from '../helpers/sampling-designs.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h.close();
});

const toolEvents = (events: AnyEvent[]) =>
  events.filter((e) => e.event === 'tool_call').map((e) => (e.event === 'tool_call' ? e.data : undefined)!);

describe('sampling plugin through the agent', () => {
  it('is loaded with no variable, on-demand, and reported by status() and /ready', async () => {
    expect(h.app.plugins.status().loaded).toContain('sampling');
    const ready = await (await fetch(`${h.url}/ready`)).json();
    expect(ready.plugins.loaded).toContain('sampling');
    expect(h.lines).toContain('[boot] loaded: sampling');
  });

  it("load_capability → calculate_sample_size → recalculate_sample_size: the numbers are computeDesign's and reach the model", async () => {
    const u = await h.user();
    const sessionId = await u.newSession();
    const input = { population: 8000, expectedMean: 3.1, expectedSD: 1.7, dropoutRate: 0.1 };
    const stratified = stratifiedInput(6000, NORTH_SOUTH_55_45, { expectedMean: 1.2, expectedSD: 0.5 });
    h.model.enqueue(
      callTool('load_capability', { names: ['sampling'] }, 'c_load'),
      callTool('calculate_sample_size', input, 'c_calc'),
      callTool('calculate_sample_size', stratified, 'c_strat'),
      callTool('recalculate_sample_size', { mean: 1.3, sd: 0.45, dropoutRate: 0.12 }, 'c_recalc'),
      (body) => {
        const r = lastToolResult(body) as { adjustedSize: number; changeSummary: string };
        return say(`You now need ${r.adjustedSize} households. ${r.changeSummary}`);
      },
    );
    const before = h.model.requests.length;
    const { events } = await u.stream(
      sessionId,
      'How many households for 8000 stoves, mean 3.1 h, SD 1.7, 10 % dropout?',
    );
    expect(events.at(-1)).toMatchObject({ event: 'done', data: { status: 'finished' } });
    const calls = toolEvents(events);
    expect(calls.map((c) => [c.toolName, c.status])).toEqual([
      ['load_capability', 'isRunning'],
      ['load_capability', 'done'],
      ['calculate_sample_size', 'isRunning'],
      ['calculate_sample_size', 'done'],
      ['calculate_sample_size', 'isRunning'],
      ['calculate_sample_size', 'done'],
      ['recalculate_sample_size', 'isRunning'],
      ['recalculate_sample_size', 'done'],
    ]);
    const reqs = h.model.requests.slice(before);
    // the tools are offered only after load_capability
    expect((reqs[0]!.body.tools ?? []).map((t) => t.function.name)).not.toContain('calculate_sample_size');
    expect((reqs[1]!.body.tools ?? []).map((t) => t.function.name)).toEqual(
      expect.arrayContaining(['calculate_sample_size', 'recalculate_sample_size']),
    );
    const loadOut = lastToolResult(reqs[1]!.body) as { loaded: { name: string; tools: { name: string }[] }[] };
    expect(loadOut.loaded[0]!.tools.map((t) => t.name)).toEqual(['calculate_sample_size', 'recalculate_sample_size']);

    // the result the model received equals the shared library's
    const expected = computeDesign(input);
    const got = lastToolResult(reqs[2]!.body) as {
      ok: boolean;
      adjustedSize: number;
      calculatedSize: number;
      design: unknown;
      summary: string;
    };
    expect(got.ok).toBe(true);
    expect(got.adjustedSize).toBe(486);
    expect(got.calculatedSize).toBe(437);
    expect(got.design).toEqual(JSON.parse(JSON.stringify(expected)));
    expect(got.summary).toMatch(/486 households/);
    const streamed = calls.find((c) => c.eventId === 'c_calc' && c.status === 'done');
    expect(streamed?.output).toMatchObject({ adjustedSize: 486, calculatedSize: 437 });

    const strat = lastToolResult(reqs[3]!.body) as {
      adjustedSize: number;
      strata: { name: string; sampleSize: number; population: number }[];
    };
    const es = computeDesign(stratified);
    expect(strat.adjustedSize).toBe(es.parameters.adjustedSize);
    expect(strat.strata.map((s) => [s.name, s.population, s.sampleSize])).toEqual(
      es.stratification.strata.map((s) => [s.name, s.population, s.sampleSize]),
    );

    // recalculation uses the session's last design (the stratified one)
    const rc = lastToolResult(reqs[4]!.body) as {
      adjustedSize: number;
      change: { total: { from: number; to: number; direction: string } };
      design: unknown;
    };
    const er = recalculate({ previous: es, mean: 1.3, sd: 0.45, dropoutRate: 0.12 });
    expect(rc.adjustedSize).toBe(er.design.parameters.adjustedSize);
    expect(rc.change.total).toEqual(er.change!.total);
    expect(rc.design).toEqual(JSON.parse(JSON.stringify(er.design)));
    const text = events.map((e) => (e.event === 'message' ? e.data.content : '')).join('');
    expect(text).toContain(`You now need ${er.design.parameters.adjustedSize} households.`);
  });

  it('recalculates from raw observations and reports the achieved precision', async () => {
    const u = await h.user();
    const sessionId = await u.newSession();
    const previous = computeDesign({ population: 200, expectedMean: 3, expectedSD: 1, dropoutRate: 0 });
    const observations = Array.from({ length: 60 }, (_, i) => ({ household: `H${i}`, value: 2.5 + (i % 5) * 0.25 }));
    h.model.enqueue(
      callTool('load_capability', { names: ['sampling'] }),
      callTool('recalculate_sample_size', { previous, observations }, 'c_obs'),
      say('done'),
    );
    const { events } = await u.stream(sessionId, 'here are my observations');
    const out = toolEvents(events).find((c) => c.eventId === 'c_obs' && c.status === 'done')?.output as {
      achieved: unknown;
      adjustedSize: number;
    };
    const er = recalculate({ previous, observations: observations.map((o, i) => ({ ...o, line: i + 1 })) });
    expect(out.achieved).toEqual(JSON.parse(JSON.stringify(er.achieved)));
    expect(out.adjustedSize).toBe(er.design.parameters.adjustedSize);
  });

  it('library errors reach the model as clear tool errors (code, field, what is valid), and the turn finishes', async () => {
    const u = await h.user();
    const sessionId = await u.newSession();
    h.model.enqueue(
      callTool('load_capability', { names: ['sampling'] }),
      callTool(
        'calculate_sample_size',
        { population: 8000, expectedMean: 3.1, expectedSD: 1.7, dropoutRate: 15 },
        'c_bad',
      ),
      callTool(
        'calculate_sample_size',
        { population: 100, expectedMean: 1, expectedSD: 2, dropoutRate: 0.5 },
        'c_small',
      ),
      callTool('recalculate_sample_size', { mean: 2 }, 'c_noprev'),
      say('Please give the dropout as a fraction.'),
    );
    const before = h.model.requests.length;
    const { events } = await u.stream(sessionId, 'size with 15 % dropout');
    expect(events.at(-1)).toMatchObject({ event: 'done', data: { status: 'finished' } });
    const errs = toolEvents(events).filter((c) => c.status === 'error');
    expect(errs.map((e) => e.eventId)).toEqual(['c_bad', 'c_small', 'c_noprev']);
    expect(errs[0]!.error).toMatch(/^invalid_dropout \(HTTP 400\) on dropoutRate: .*a percentage\? 15 % is 0\.15/);
    expect(errs[0]!.error).not.toMatch(/\n\s+at /); // no stack
    expect(errs[1]!.error).toMatch(/^insufficient_population \(HTTP 422\)/);
    expect(errs[2]!.error).toMatch(/^missing_parameter: there is no previous design/);
    const reqs = h.model.requests.slice(before);
    expect(JSON.stringify(lastToolResult(reqs[2]!.body))).toMatch(/invalid_dropout/);
  });
});
