import { describe, expect, it } from 'vitest';
import { buildGrammars, dictionarySubset, dictionaryWords, displayText, toWords } from './grammar.ts';
import { phrase, ticks } from './messages.ts';
import { applySpeechContext, isEnglish, modeForPath, settingsFromUrl } from './settings.ts';

const DICT = ['where W EH R', 'is IH Z', 'the DH AH', 'nearest N IH R AH S T', 'store S T AO R', 'products P R AA D AH K T S', 'products(2) P R AA D AH K S', "what's W AH T S"].join('\n');

describe('grammar', () => {
  it('spells questions as dictionary words', () => {
    expect(toWords("  Where's the NEAREST store?! ")).toEqual(["where's", 'the', 'nearest', 'store']);
  });

  it('folds alternate pronunciations into one word', () => {
    const words = dictionaryWords(DICT);
    expect(words.has('products')).toBe(true);
    expect(words.has('products(2)')).toBe(false);
  });

  it('builds a full and a prefix grammar, leaving out questions with unknown words', () => {
    const g = buildGrammars(['Where is the nearest store?', 'where is the nearest store', 'where is the zorblax'], dictionaryWords(DICT));
    expect(g?.questions).toEqual([['where', 'is', 'the', 'nearest', 'store']]);
    expect(g?.rejected).toEqual([{ question: 'where is the zorblax', missing: ['zorblax'] }]);
    expect(g?.full).toBe('#JSGF V1.0;\ngrammar question;\npublic <question> = where is the nearest store;\n');
    expect(g?.prefix).toContain('public <prefix> = where [ is [ the [ nearest [ store ] ] ] ];');
    expect(g?.fragment).toBe(
      '#JSGF V1.0;\ngrammar fragment;\npublic <fragment> = where | where is | where is the | where is the nearest | is the nearest store | the nearest store | nearest store | store;\n',
    );
  });

  it('cuts the dictionary down to the grammar words, alternate pronunciations kept', () => {
    expect(dictionarySubset(DICT, ['products', 'store'])).toBe('store S T AO R\nproducts P R AA D AH K T S\nproducts(2) P R AA D AH K S\n');
  });

  it('gives no grammar when no question is usable', () => {
    expect(buildGrammars(['zorblax quux'], dictionaryWords(DICT))).toBeNull();
  });

  it('displays words capitalised with the end mark of a question or a statement', () => {
    expect(displayText('where is the nearest store')).toBe('Where is the nearest store?');
    expect(displayText('tell me about the discount')).toBe('Tell me about the discount.');
    expect(displayText('')).toBe('');
  });
});

describe('service messages', () => {
  it('counts offsets in 100-ns ticks', () => {
    expect(ticks(16_000)).toBe(10_000_000);
  });

  it('shapes phrases as the SDK reads them', () => {
    expect(phrase({ status: 'Success', offset: 1, duration: 2, lexical: 'show me the new products' })).toEqual({
      RecognitionStatus: 'Success',
      DisplayText: 'Show me the new products.',
      Offset: 1,
      Duration: 2,
    });
    expect(phrase({ status: 'Success', offset: 1, duration: 2, lexical: '' })).toEqual({ RecognitionStatus: 'NoMatch', Offset: 1, Duration: 2 });
    const detailed = phrase({ status: 'Success', offset: 0, duration: 0, lexical: 'where is the nearest store', detailed: true, confidence: 0.9 });
    expect(detailed).toMatchObject({ NBest: [{ Lexical: 'where is the nearest store', Display: 'Where is the nearest store?', Confidence: 0.9 }] });
  });
});

describe('connection settings', () => {
  it('maps the SDK recognition paths to modes', () => {
    expect(modeForPath('/speech/recognition/conversation/cognitiveservices/v1')).toBe('conversation');
    expect(modeForPath('/speech/recognition/interactive/cognitiveservices/v1/')).toBe('interactive');
    expect(modeForPath('/speech/recognition/dictation/cognitiveservices/v1')).toBe('dictation');
    expect(modeForPath('/ws')).toBeNull();
  });

  it('reads language, format and timeouts from the URL, with a 500 ms default segmentation', () => {
    const q = new URLSearchParams('language=en-GB&format=detailed&segmentationSilenceTimeoutMs=1000');
    expect(settingsFromUrl('conversation', q)).toEqual({ mode: 'conversation', language: 'en-GB', detailed: true, segmentationSilenceMs: 1000, initialSilenceMs: null });
    expect(settingsFromUrl('conversation', new URLSearchParams()).segmentationSilenceMs).toBe(500);
    expect(settingsFromUrl('conversation', new URLSearchParams('segmentationSilenceTimeoutMs=abc')).segmentationSilenceMs).toBe(500);
    expect(settingsFromUrl('interactive', new URLSearchParams()).initialSilenceMs).toBe(5000);
    expect(settingsFromUrl('interactive', new URLSearchParams('endSilenceTimeoutMs=800')).segmentationSilenceMs).toBe(800);
  });

  it('lets speech.context override the segmentation silence and language', () => {
    const base = settingsFromUrl('conversation', new URLSearchParams('language=en-US'));
    const context = { phraseDetection: { language: 'zh-CN', mode: 'Conversation', conversation: { segmentation: { mode: 'Custom', segmentationSilenceTimeoutMs: 1000 } } } };
    expect(applySpeechContext(base, context)).toMatchObject({ language: 'zh-CN', segmentationSilenceMs: 1000 });
    expect(applySpeechContext(base, { phraseDetection: { conversation: { segmentation: { segmentationSilenceTimeoutMs: -5 } } } })).toEqual(base);
    expect(applySpeechContext(base, 'not an object')).toEqual(base);
  });

  it('knows which languages are English', () => {
    expect(['en-US', 'en-gb', 'en'].every(isEnglish)).toBe(true);
    expect(['zh-CN', 'ja-JP', 'eng'].some(isEnglish)).toBe(false);
  });
});
