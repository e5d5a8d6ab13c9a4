/**
 * The voice pipeline's own audio and text rules (src/calls/audio.ts): how streamed text is cut
 * for text-to-speech (sentences; a first clause when the answer's first sentence is long), and a
 * sentence's speech as it streams in.
 */
import { describe, expect, it } from 'vitest';
import { StreamedSpeech, takeSentences } from '../../../../../src/calls/audio.ts';

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

describe('StreamedSpeech', () => {
  it('keeps the samples in order as they come, growing past its first size, and wakes a reader at each', async () => {
    const speech = new StreamedSpeech();
    let woken = 0;
    const waiting = speech.more().then(() => woken++);
    const first = speech.first.then(() => 'first');
    speech.push(Int16Array.from([1, 2, 3]));
    await waiting;
    expect(woken).toBe(1);
    expect(await first).toBe('first');
    for (let i = 0; i < 100; i++) speech.push(Int16Array.from([i, i]));
    expect(speech.length).toBe(203);
    expect(Array.from(speech.slice(0, 5))).toEqual([1, 2, 3, 0, 0]);
    expect(Array.from(speech.slice(201, 10))).toEqual([99, 99]); // fewer at the end of what came
    expect(speech.ended).toBe(false);
  });

  it('ends once: a reader waiting is woken, later waits resolve at once, what comes after is dropped', async () => {
    const speech = new StreamedSpeech();
    const waiting = speech.more();
    speech.end();
    await waiting;
    await speech.more();
    await speech.first; // ended without samples: the first wait is over too
    speech.push(Int16Array.from([1]));
    speech.end(new Error('late'));
    expect(speech.length).toBe(0);
    expect(speech.failed).toBeUndefined();
  });

  it("keeps why it ended early (the service's stream failed) for the player to report", () => {
    const speech = new StreamedSpeech();
    speech.push(Int16Array.from([1, 2]));
    const e = new Error('the text-to-speech service went away');
    speech.end(e);
    expect(speech.ended).toBe(true);
    expect(speech.failed).toBe(e);
    expect(speech.length).toBe(2);
  });
});
