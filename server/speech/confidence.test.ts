import { describe, expect, it } from 'vitest';
import { BACKGROUND_DB, isFiller, loudFrames, parseHypseg, unexplainedSpeechFrames } from './confidence.ts';
import { silence, tone } from './testing.ts';

function pcm(...parts: Buffer[]): Int16Array {
  const all = Buffer.concat(parts);
  return new Int16Array(all.buffer, all.byteOffset, all.length / 2);
}

describe('grammar confidence', () => {
  it('parses pocketsphinx hypseg lines into word segments', () => {
    const line = 'w1 S 0 T -7024 A -6350 L -674 0 -1190 0 what 23 -979 0 is 48 -509 -337 <sil> 63 -450 0 products(2) 73 -3222 -337 <sil> 217';
    expect(parseHypseg(line)).toEqual([
      { word: 'what', start: 0, end: 23 },
      { word: 'is', start: 23, end: 48 },
      { word: '<sil>', start: 48, end: 63 },
      { word: 'products', start: 63, end: 73 },
      { word: '<sil>', start: 73, end: 217 },
    ]);
    expect(parseHypseg('utt S 0 T 0 A 0 L 0 197')).toEqual([]);
  });

  it('knows pocketsphinx filler words', () => {
    expect(['<sil>', '<s>', '</s>', '[NOISE]', '++BREATH++'].every(isFiller)).toBe(true);
    expect(isFiller('store')).toBe(false);
  });

  it('finds the loud frames of an utterance', () => {
    const loud = loudFrames(pcm(silence(200), tone(300), silence(200)));
    expect(loud).toHaveLength(70);
    expect(loud.filter(Boolean)).toHaveLength(30);
    expect(loud[25]).toBe(true);
    expect(loud[5]).toBe(false);
  });

  it('counts speech covered only by silence or after the last segment', () => {
    const audio = pcm(tone(500), silence(200), tone(600));
    const words = [{ word: 'hello', start: 0, end: 50 }];
    expect(unexplainedSpeechFrames(audio, [...words, { word: '<sil>', start: 50, end: 130 }])).toBe(60);
    expect(unexplainedSpeechFrames(audio, words)).toBe(60);
    expect(unexplainedSpeechFrames(audio, [...words, { word: '<sil>', start: 50, end: 70 }, { word: 'there', start: 70, end: 130 }])).toBe(0);
  });

  it('does not count background far below the speech, such as the echo of the avatar at -25 dB after a question, but counts it within 20 dB', () => {
    const words = [{ word: 'store', start: 20, end: 70 }];
    const echoAfter = (db: number) => pcm(silence(200), tone(500), tone(600, Math.round(8000 * 10 ** (db / 20))));
    // Loud against the utterance's silence floor either way: only the margin below the speech decides.
    expect(loudFrames(echoAfter(-25)).filter(Boolean)).toHaveLength(110);
    // Only its first 100 ms, next to the speech, counts: 10 frames of the 60.
    expect(unexplainedSpeechFrames(echoAfter(-25), words)).toBe(10);
    expect(unexplainedSpeechFrames(echoAfter(-(BACKGROUND_DB - 5)), words)).toBe(60);
  });

  it('counts quiet speech next to loud speech: a word 30 dB down between two loud ones is not background', () => {
    const quiet = Math.round(8000 * 10 ** (-30 / 20));
    // Loud, quiet for 150 ms, loud: only the quiet frames more than 100 ms from the loud ones are left out.
    const audio = pcm(silence(200), tone(500), tone(150, quiet), tone(500));
    expect(unexplainedSpeechFrames(audio, [{ word: 'store', start: 20, end: 70 }, { word: '<sil>', start: 70, end: 85 }, { word: 'here', start: 85, end: 135 }])).toBe(15);
    expect(unexplainedSpeechFrames(audio, [{ word: 'store', start: 20, end: 70 }])).toBe(65);
  });
});
