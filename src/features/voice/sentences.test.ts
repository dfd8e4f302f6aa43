import { describe, expect, it } from 'vitest';
import {
  initialSentenceState,
  joinPhrases,
  nextDeadline,
  stepSentences,
  type SentenceEvent,
  type SentenceOutput,
} from './sentences.ts';

const WAIT = 1500;
const EARLY = 2000;
const RESUME = 1500;
const TIMING = { waitMs: WAIT, earlyMs: EARLY, resumeMs: RESUME };
/** The recognizer still connecting (D6): a sentence waits for its words far longer than the visitor may go on with it. */
const PENDING = { ...TIMING, waitMs: 15_000 };

/** Runs events (with the time each happens at) and returns every output in order. */
function run(events: [number, SentenceEvent][], timing = TIMING, lang = 'en'): SentenceOutput[] {
  let state = initialSentenceState;
  const outputs: SentenceOutput[] = [];
  for (const [now, event] of events) {
    const result = stepSentences(state, event, now, timing, lang);
    state = result.state;
    outputs.push(...result.outputs);
  }
  return outputs;
}

describe('call sentences', () => {
  it('a sentence starting interrupts; one start per sentence however often the VAD repeats it', () => {
    expect(run([[0, { type: 'speechStart', msgId: 'a' }], [10, { type: 'speechStart', msgId: 'b' }]])).toEqual([
      { type: 'interrupt', msgId: 'a' },
    ]);
  });

  it('waits after the VAD end for the final phrase that is owed', () => {
    const outputs = run([
      [0, { type: 'speechStart', msgId: 'a' }],
      [900, { type: 'recognizing', text: 'where is' }],
      [2000, { type: 'speechEnd' }],
      [2600, { type: 'recognized', text: 'where is the nearest store' }],
    ]);
    expect(outputs).toEqual([
      { type: 'interrupt', msgId: 'a' },
      { type: 'partial', msgId: 'a', text: 'where is' },
      { type: 'complete', msgId: 'a', phrases: ['where is the nearest store'] },
    ]);
  });

  it('sends at once when the phrase came before the VAD end and nothing else is pending', () => {
    const outputs = run([
      [0, { type: 'speechStart', msgId: 'a' }],
      [1000, { type: 'recognized', text: 'hello' }],
      [1200, { type: 'speechEnd' }],
    ]);
    expect(outputs.at(-1)).toEqual({ type: 'complete', msgId: 'a', phrases: ['hello'] });
  });

  it('still waits when words after the last phrase are pending, and joins both phrases', () => {
    const outputs = run([
      [0, { type: 'speechStart', msgId: 'a' }],
      [1000, { type: 'recognized', text: 'hello' }],
      [1500, { type: 'recognizing', text: 'where' }],
      [2000, { type: 'speechEnd' }],
      [2500, { type: 'recognized', text: 'where is the store' }],
    ]);
    expect(outputs.at(-1)).toEqual({ type: 'complete', msgId: 'a', phrases: ['hello', 'where is the store'] });
  });

  it('gives up after the wait; a phrase after that, with no sentence following it, is dropped', () => {
    const outputs = run([
      [0, { type: 'speechStart', msgId: 'a' }],
      [1000, { type: 'speechEnd' }],
      [1000 + WAIT - 1, { type: 'tick' }],
      [1000 + WAIT, { type: 'tick' }],
      [3000, { type: 'recognized', text: 'late' }],
      [3000 + EARLY - 1, { type: 'tick' }],
      [3000 + EARLY, { type: 'tick' }],
    ]);
    expect(outputs.slice(1)).toEqual([
      { type: 'discarded', msgId: 'a', reason: 'nothing recognized' },
      { type: 'stray', text: 'late' },
    ]);
  });

  it('a phrase heard just before the VAD reports its speech (VAD running late) becomes the sentence', () => {
    let state = initialSentenceState;
    const outputs: SentenceOutput[] = [];
    const events: [number, SentenceEvent][] = [
      [0, { type: 'recognized', text: 'where is the nearest store' }],
      [800, { type: 'speechStart', msgId: 'a' }],
      [2500, { type: 'speechEnd' }],
    ];
    for (const [now, event] of events) {
      const result = stepSentences(state, event, now, TIMING, 'en');
      state = result.state;
      outputs.push(...result.outputs);
      if (now === 0) expect(nextDeadline(state, TIMING)).toBe(EARLY);
    }
    // Still owed a phrase of its own: it waits, then goes with the early one.
    expect(nextDeadline(state, TIMING)).toBe(2500 + WAIT);
    const last = stepSentences(state, { type: 'tick' }, 2500 + WAIT, TIMING, 'en');
    expect([...outputs, ...last.outputs].at(-1)).toEqual({ type: 'complete', msgId: 'a', phrases: ['where is the nearest store'] });
  });

  it('a misfire waits for no words and is discarded without words (and without a toast) once the visitor has not gone on', () => {
    const outputs = run([
      [0, { type: 'speechStart', msgId: 'a' }],
      [300, { type: 'misfire' }],
      [300 + RESUME - 1, { type: 'tick' }],
      [300 + RESUME, { type: 'tick' }],
    ]);
    expect(outputs).toEqual([
      { type: 'interrupt', msgId: 'a' },
      { type: 'discarded', msgId: 'a', reason: 'misfire' },
    ]);
    // Words that come meanwhile are the misfire's: a short question over the avatar, whose threshold is raised.
    const words = run([
      [0, { type: 'speechStart', msgId: 'a' }],
      [300, { type: 'misfire' }],
      [500, { type: 'recognized', text: 'what are your opening hours' }],
    ]);
    expect(words.slice(1)).toEqual([{ type: 'complete', msgId: 'a', phrases: ['what are your opening hours'] }]);
  });

  it('the final of a waiting sentence goes to it even when the next sentence has started', () => {
    const next = 1000 + RESUME;
    const outputs = run(
      [
        [0, { type: 'speechStart', msgId: 'a' }],
        [1000, { type: 'speechEnd' }],
        [next, { type: 'speechStart', msgId: 'b' }],
        [next + 200, { type: 'recognized', text: 'first' }],
        [next + 1000, { type: 'recognized', text: 'second' }],
        [next + 1100, { type: 'speechEnd' }],
      ],
      PENDING,
    );
    expect(outputs.filter((o) => o.type === 'complete')).toEqual([
      { type: 'complete', msgId: 'a', phrases: ['first'] },
      { type: 'complete', msgId: 'b', phrases: ['second'] },
    ]);
  });

  it('a sentence waiting for its words is cut short by a flush, and unrecognized when a newer one ends first', () => {
    const cut = run([
      [0, { type: 'speechStart', msgId: 'a' }],
      [1000, { type: 'speechEnd' }],
      [1200, { type: 'flush' }],
    ]);
    expect(cut.at(-1)).toEqual({ type: 'discarded', msgId: 'a', reason: 'cut short' });
    const pushed = run(
      [
        [0, { type: 'speechStart', msgId: 'a' }],
        [1000, { type: 'speechEnd' }],
        [1000 + RESUME, { type: 'speechStart', msgId: 'b' }],
        [1200 + RESUME, { type: 'speechEnd' }],
      ],
      PENDING,
    );
    expect(pushed.filter((o) => o.type === 'discarded')).toEqual([{ type: 'discarded', msgId: 'a', reason: 'nothing recognized' }]);
  });

  it('flush sends what has words and drops what has none as cut short, not as unrecognized', () => {
    const outputs = run([
      [0, { type: 'speechStart', msgId: 'a' }],
      [100, { type: 'recognized', text: 'kept' }],
      [200, { type: 'flush' }],
      [300, { type: 'speechStart', msgId: 'b' }],
      [400, { type: 'flush' }],
    ]);
    expect(outputs.filter((o) => o.type !== 'interrupt')).toEqual([
      { type: 'complete', msgId: 'a', phrases: ['kept'] },
      { type: 'discarded', msgId: 'b', reason: 'cut short' },
    ]);
  });
});

describe('a turn is the whole question (D8)', () => {
  const kinds = (outputs: SentenceOutput[]) => outputs.map((o) => o.type);

  it('speech that starts again within the wait goes on with the sentence: one break, one message, no toast', () => {
    // "where is the" … 0.5 s … "nearest store": the recognizer hears one phrase.
    const outputs = run([
      [0, { type: 'speechStart', msgId: 'a' }],
      [1000, { type: 'speechEnd' }],
      [1300, { type: 'speechStart', msgId: 'b' }],
      [2500, { type: 'speechEnd' }],
      [2800, { type: 'recognized', text: 'Where is the nearest store?' }],
    ]);
    expect(kinds(outputs)).toEqual(['interrupt', 'resumed', 'complete']);
    expect(outputs.at(-1)).toEqual({ type: 'complete', msgId: 'a', phrases: ['Where is the nearest store?'] });
    expect(outputs[1]).toEqual({ type: 'resumed', msgId: 'a', pausedMs: 300 });
  });

  it('words that leave the question open wait for the rest: two phrases, one message', () => {
    // The recognizer splits at the pause, and its first phrase comes before the visitor goes on.
    const outputs = run([
      [0, { type: 'speechStart', msgId: 'a' }],
      [1000, { type: 'speechEnd' }],
      [1200, { type: 'recognized', text: 'Where is the?' }],
      [1900, { type: 'speechStart', msgId: 'b' }],
      [3000, { type: 'speechEnd' }],
      [3300, { type: 'recognized', text: 'Nearest store.' }],
    ]);
    expect(kinds(outputs)).toEqual(['interrupt', 'resumed', 'complete']);
    expect(outputs.at(-1)).toEqual({ type: 'complete', msgId: 'a', phrases: ['Where is the?', 'Nearest store.'] });
    expect(joinPhrases(['Where is the?', 'Nearest store.'], 'en')).toBe('Where is the nearest store.');
  });

  it("the part before the pause's phrase, come after the visitor went on, does not end the sentence", () => {
    const outputs = run([
      [0, { type: 'speechStart', msgId: 'a' }],
      [1000, { type: 'speechEnd' }],
      [2000, { type: 'speechStart', msgId: 'b' }],
      [2200, { type: 'recognized', text: 'where is the' }],
      [3000, { type: 'speechEnd' }],
      [3300, { type: 'recognized', text: 'nearest store' }],
    ]);
    expect(outputs.at(-1)).toEqual({ type: 'complete', msgId: 'a', phrases: ['where is the', 'nearest store'] });
    expect(kinds(outputs)).toEqual(['interrupt', 'resumed', 'complete']);
  });

  it('a visitor who stopped after "where is the" is answered when the wait is over', () => {
    let state = initialSentenceState;
    const step = (now: number, event: SentenceEvent) => {
      const result = stepSentences(state, event, now, TIMING, 'en');
      state = result.state;
      return result.outputs;
    };
    step(0, { type: 'speechStart', msgId: 'a' });
    step(1000, { type: 'speechEnd' });
    expect(step(1200, { type: 'recognized', text: 'Where is the?' })).toEqual([]);
    expect(nextDeadline(state, TIMING)).toBe(1000 + RESUME);
    expect(step(1000 + RESUME - 1, { type: 'tick' })).toEqual([]);
    expect(step(1000 + RESUME, { type: 'tick' })).toEqual([{ type: 'complete', msgId: 'a', phrases: ['Where is the?'] }]);
    // Speech after the wait is a new sentence, with its own break.
    expect(step(4000, { type: 'speechStart', msgId: 'b' })).toEqual([{ type: 'interrupt', msgId: 'b' }]);
  });

  it('finished words go as soon as they come, as before', () => {
    const outputs = run([
      [0, { type: 'speechStart', msgId: 'a' }],
      [1000, { type: 'speechEnd' }],
      [1200, { type: 'recognized', text: 'Where is the nearest store?' }],
    ]);
    expect(outputs.at(-1)).toEqual({ type: 'complete', msgId: 'a', phrases: ['Where is the nearest store?'] });
    const before = run([
      [0, { type: 'speechStart', msgId: 'a' }],
      [900, { type: 'recognized', text: 'what are your opening hours' }],
      [1000, { type: 'speechEnd' }],
    ]);
    expect(before.at(-1)).toEqual({ type: 'complete', msgId: 'a', phrases: ['what are your opening hours'] });
  });

  it('open words heard before the VAD end wait too; a language whose words are unspaced reads the end of the text', () => {
    expect(kinds(run([[0, { type: 'speechStart', msgId: 'a' }], [800, { type: 'recognized', text: '最近的门店在' }], [1000, { type: 'speechEnd' }]], TIMING, 'zh'))).toEqual(['interrupt']);
    expect(kinds(run([[0, { type: 'speechStart', msgId: 'a' }], [800, { type: 'recognized', text: '最近的门店在哪里？' }], [1000, { type: 'speechEnd' }]], TIMING, 'zh'))).toEqual(['interrupt', 'complete']);
  });

  it('a short sound after the pause may be the rest ("store"): the sentence waits for its words, and goes with what it has if none come', () => {
    const rest = run([
      [0, { type: 'speechStart', msgId: 'a' }],
      [1000, { type: 'speechEnd' }],
      [1200, { type: 'recognized', text: 'where is the' }],
      [1600, { type: 'speechStart', msgId: 'b' }],
      [1900, { type: 'misfire' }],
      [2600, { type: 'recognized', text: 'store' }],
    ]);
    expect(kinds(rest)).toEqual(['interrupt', 'resumed', 'complete']);
    expect(rest.at(-1)).toEqual({ type: 'complete', msgId: 'a', phrases: ['where is the', 'store'] });
    const cough = run([
      [0, { type: 'speechStart', msgId: 'a' }],
      [1000, { type: 'speechEnd' }],
      [1200, { type: 'recognized', text: 'where is the' }],
      [1600, { type: 'speechStart', msgId: 'b' }],
      [1900, { type: 'misfire' }],
      [1900 + WAIT - 1, { type: 'tick' }],
      [1900 + WAIT, { type: 'tick' }],
    ]);
    expect(kinds(cough)).toEqual(['interrupt', 'resumed', 'complete']);
    expect(cough.at(-1)).toEqual({ type: 'complete', msgId: 'a', phrases: ['where is the'] });
  });

  it('a first part too short to be speech (a misfire) is still the start of the turn: the visitor going on sends no second break', () => {
    // "where is the" heard as fewer than 5 confident frames, then "nearest store" 0.3 s later.
    const outputs = run([
      [0, { type: 'speechStart', msgId: 'a' }],
      [1000, { type: 'misfire' }],
      [1300, { type: 'speechStart', msgId: 'b' }],
      [2500, { type: 'speechEnd' }],
      [2800, { type: 'recognized', text: 'Where is the nearest store?' }],
    ]);
    expect(kinds(outputs)).toEqual(['interrupt', 'resumed', 'complete']);
    expect(outputs.at(-1)).toEqual({ type: 'complete', msgId: 'a', phrases: ['Where is the nearest store?'] });
  });

  it('a flush sends the held words at once', () => {
    const outputs = run([
      [0, { type: 'speechStart', msgId: 'a' }],
      [1000, { type: 'speechEnd' }],
      [1200, { type: 'recognized', text: 'where is the' }],
      [1300, { type: 'flush' }],
    ]);
    expect(outputs.at(-1)).toEqual({ type: 'complete', msgId: 'a', phrases: ['where is the'] });
  });
});

describe('joinPhrases', () => {
  it('joins with spaces in spaced languages and without in Chinese and Japanese', () => {
    expect(joinPhrases([' where is ', 'the store', ''], 'en')).toBe('where is the store');
    expect(joinPhrases(['안녕하세요', '매장'], 'kor')).toBe('안녕하세요 매장');
    expect(joinPhrases(['你好。', '门店在哪里？'], 'zh')).toBe('你好。门店在哪里？');
    expect(joinPhrases(['こんにちは', '店'], 'jp')).toBe('こんにちは店');
  });
});
