/**
 * The voice pipeline's own audio and text rules (src/calls/audio.ts): how streamed text is cut
 * for text-to-speech (sentences; a first clause when the answer's first sentence is long).
 */
import { describe, expect, it } from 'vitest';
import { takeSentences } from '../../../../../src/calls/audio.ts';

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
