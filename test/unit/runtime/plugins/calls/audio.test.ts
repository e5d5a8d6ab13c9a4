/**
 * The voice pipeline's own audio and text rules (src/runtime/plugins/calls/audio.ts): how streamed text is cut
 * for text-to-speech (sentences; a first clause when the answer's first sentence is long) and the level-and-silence
 * end of turn.
 */
import { describe, expect, it } from 'vitest';
import { Endpointer, takeSentences } from '../../../../../src/runtime/plugins/calls/audio.ts';

describe('takeSentences', () => {
  it('cuts complete sentences and keeps the open rest', () => {
    expect(takeSentences('It is mild. Take a jack')).toEqual({ sentences: ['It is mild.'], rest: 'Take a jack' });
    expect(takeSentences('Okay.')).toEqual({ sentences: [], rest: 'Okay.' });
    expect(takeSentences('One! Two? Three. ')).toEqual({ sentences: ['One!', 'Two?', 'Three.'], rest: '' });
  });

  it("speaks a first clause of four words or more before its sentence ends, only when asked (the answer's start)", () => {
    const long = 'In Nairobi this evening, the sky is clear and the air is';
    expect(takeSentences(long, { clause: true })).toEqual({
      sentences: ['In Nairobi this evening,'],
      rest: 'the sky is clear and the air is',
    });
    expect(takeSentences(long)).toEqual({ sentences: [], rest: long });
    expect(takeSentences('Well, the sky', { clause: true })).toEqual({ sentences: [], rest: 'Well, the sky' });
    // a sentence already complete wins over a clause
    expect(takeSentences('Yes, it is warm today. And', { clause: true })).toEqual({
      sentences: ['Yes, it is warm today.'],
      rest: 'And',
    });
  });
});

describe('Endpointer', () => {
  const frame = (amplitude: number) => new Int16Array(480).map((_, i) => (i % 2 ? amplitude : -amplitude));
  it('starts after 60 ms of voice and ends after the silence setting, with 200 ms before the start kept', () => {
    const e = new Endpointer({ endMs: 100 });
    for (let i = 0; i < 30; i++) expect(e.push(frame(0), 48_000)).toBeUndefined();
    const pushes = Array.from({ length: 6 }, () => e.push(frame(8000), 48_000));
    expect(pushes.indexOf('start')).toBe(5);
    for (let i = 0; i < 9; i++) expect(e.push(frame(0), 48_000)).toBeUndefined();
    const out = e.push(frame(0), 48_000);
    expect(out).toBeInstanceOf(Int16Array);
    // 20 frames of pre-roll (6 voiced among them), the 10 silent ones after
    expect((out as Int16Array).length / 480).toBe(30);
  });
});
