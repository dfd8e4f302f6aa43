import { describe, expect, it, vi } from 'vitest';
import { ConfigError, createRecognizer, UNTHROTTLED_MS, UNTHROTTLED_PROPERTY, type RecognizerConfig, type SpeechSdkModule } from './speechRecognizer.ts';

/** The slice of the Speech SDK the adapter touches, recording what it is asked to do. */
function fakeSdk(options: { startError?: string; stopError?: string } = {}) {
  const made = {
    fromHost: [] as [string, string | undefined][],
    fromSubscription: [] as [string, string][],
    properties: new Map<unknown, string>(),
    language: '',
    format: [] as number[],
    writes: [] as ArrayBuffer[],
    streamClosed: 0,
    started: 0,
    stoppedContinuous: 0,
    closed: 0,
  };
  const recognizers: FakeRecognizer[] = [];
  const speechConfig = {
    set speechRecognitionLanguage(value: string) {
      made.language = value;
    },
    setProperty: (name: unknown, value: string) => made.properties.set(name, value),
  };
  class FakeRecognizer {
    recognizing?: (s: unknown, e: unknown) => void;
    recognized?: (s: unknown, e: unknown) => void;
    canceled?: (s: unknown, e: unknown) => void;
    sessionStopped?: (s: unknown, e: unknown) => void;
    constructor(
      readonly config: unknown,
      readonly audio: unknown,
    ) {
      recognizers.push(this);
    }
    startContinuousRecognitionAsync(done: () => void, fail: (e: string) => void) {
      made.started++;
      if (options.startError) fail(options.startError);
      else done();
    }
    stopContinuousRecognitionAsync(done: () => void, fail: (e: string) => void) {
      made.stoppedContinuous++;
      if (options.stopError) fail(options.stopError);
      else done();
    }
    close(done: () => void) {
      made.closed++;
      done();
    }
  }
  const sdk = {
    SpeechConfig: {
      fromHost: (host: URL, key?: string) => (made.fromHost.push([host.href, key]), speechConfig),
      fromSubscription: (key: string, region: string) => (made.fromSubscription.push([key, region]), speechConfig),
    },
    PropertyId: { Speech_SegmentationSilenceTimeoutMs: 'SEGMENTATION', WebWorkerLoadType: 'WEB_WORKER' },
    AudioStreamFormat: { getWaveFormatPCM: (rate: number, bits: number, channels: number) => (made.format = [rate, bits, channels]) },
    AudioInputStream: {
      createPushStream: () => ({
        write: (b: ArrayBuffer) => made.writes.push(b),
        close: () => made.streamClosed++,
      }),
    },
    AudioConfig: { fromStreamInput: (stream: unknown) => ({ stream }) },
    SpeechRecognizer: FakeRecognizer,
    ResultReason: { RecognizedSpeech: 3, NoMatch: 0 },
    CancellationReason: { Error: 0, EndOfStream: 1 },
    CancellationErrorCode: { AuthenticationFailure: 1, ConnectionFailure: 4, ServiceTimeout: 5 },
  };
  return { made, load: async () => sdk as unknown as SpeechSdkModule, recognizer: () => recognizers[0]! };
}

const base: RecognizerConfig = { lang: 'en', host: null, key: 'k-123', region: 'eastasia', segmentationSilenceMs: 1000 };

describe('createRecognizer', () => {
  it('uses fromSubscription with key and region when no host is set, and the spec audio format', async () => {
    const sdk = fakeSdk();
    const rec = await createRecognizer(base, sdk.load);
    expect(sdk.made.fromSubscription).toEqual([['k-123', 'eastasia']]);
    expect(sdk.made.fromHost).toEqual([]);
    expect(sdk.made.format).toEqual([16000, 16, 1]);
    expect(sdk.made.language).toBe('en-US');
    expect(rec.locale).toBe('en-US');
    expect(sdk.made.properties.get('SEGMENTATION')).toBe('1000');
  });

  it('uses fromHost with the key for the local stand-in, with the locale of the language', async () => {
    const sdk = fakeSdk();
    await createRecognizer({ ...base, lang: 'jp', host: 'ws://127.0.0.1:8080', segmentationSilenceMs: 500 }, sdk.load);
    expect(sdk.made.fromHost).toEqual([['ws://127.0.0.1:8080/', 'k-123']]);
    expect(sdk.made.language).toBe('ja-JP');
    expect(sdk.made.properties.get('SEGMENTATION')).toBe('500');
  });

  // A backlog (audio queued while a loaded phone loaded the call) was paced at 2x real time past
  // the first 5 s, and the words of a question in it came after its sentence had been given up.
  it('lets the SDK send a backlog of audio at once instead of pacing it past the first 5 s', async () => {
    const sdk = fakeSdk();
    await createRecognizer(base, sdk.load);
    expect(sdk.made.properties.get(UNTHROTTLED_PROPERTY)).toBe(String(UNTHROTTLED_MS));
    expect(UNTHROTTLED_MS).toBeGreaterThanOrEqual(60 * 60 * 1000);
  });

  it("turns off the SDK's data: timer worker, which the app's CSP forbids", async () => {
    const sdk = fakeSdk();
    await createRecognizer(base, sdk.load);
    expect(sdk.made.properties.get('WEB_WORKER')).toBe('off');
  });

  it.each([
    ['no key', { key: null }],
    ['a blank key', { key: '  ' }],
    ['no region', { region: undefined }],
    ['an invalid host', { host: 'not a url' }],
  ])('rejects %s with a ConfigError', async (_label, patch) => {
    const sdk = fakeSdk();
    await expect(createRecognizer({ ...base, ...patch }, sdk.load)).rejects.toBeInstanceOf(ConfigError);
  });

  it('rejects a nonsensical segmentation silence before loading the SDK', async () => {
    const load = vi.fn();
    await expect(createRecognizer({ ...base, segmentationSilenceMs: 0 }, load)).rejects.toThrow(RangeError);
    expect(load).not.toHaveBeenCalled();
  });

  it('writes PCM to the push stream as exactly the bytes of the samples', async () => {
    const sdk = fakeSdk();
    const rec = await createRecognizer(base, sdk.load);
    rec.write(Int16Array.from([1, -2, 3]));
    const view = new Int16Array(Int16Array.from([9, 8, 7, 6]).buffer, 2, 2);
    rec.write(view);
    rec.write(new Int16Array(0));
    expect(sdk.made.writes.map((b) => Array.from(new Int16Array(b)))).toEqual([
      [1, -2, 3],
      [8, 7],
    ]);
  });

  it('starts continuous recognition and reports texts, cancellation and session end', async () => {
    const sdk = fakeSdk();
    const rec = await createRecognizer(base, sdk.load);
    const seen: unknown[] = [];
    rec.on('recognizing', (t, at) => seen.push(['recognizing', t, at]));
    rec.on('recognized', (t, at) => seen.push(['recognized', t, at]));
    rec.on('canceled', (r, d, lost) => seen.push(['canceled', r, d, lost]));
    rec.on('sessionStopped', () => seen.push(['sessionStopped']));
    await rec.start();
    expect(sdk.made.started).toBe(1);
    const r = sdk.recognizer();
    // Offsets are 100-ns ticks into the recognizer's audio; one missing counts as 0.
    r.recognizing?.(null, { result: { text: 'where is', offset: 12_000_000 } });
    r.recognized?.(null, { result: { text: ' where is the nearest store ', reason: 3 } });
    r.recognized?.(null, { result: { text: '', reason: 0 } });
    r.canceled?.(null, { reason: 0, errorCode: 4, errorDetails: 'websocket closed' });
    r.canceled?.(null, { reason: 0, errorCode: 1, errorDetails: 'unauthorized' });
    r.canceled?.(null, { reason: 1, errorDetails: '' });
    r.sessionStopped?.(null, {});
    expect(seen).toEqual([
      ['recognizing', 'where is', 1200],
      ['recognized', 'where is the nearest store', 0],
      // ConnectionFailure is the connection's fault; AuthenticationFailure is the settings'.
      ['canceled', 'error', 'websocket closed', true],
      ['canceled', 'error', 'unauthorized', false],
      ['canceled', 'endOfStream', '', false],
      ['sessionStopped'],
    ]);
  });

  it('rejects start with the SDK error', async () => {
    const sdk = fakeSdk({ startError: 'connection refused' });
    const rec = await createRecognizer(base, sdk.load);
    await expect(rec.start()).rejects.toThrow('connection refused');
  });

  it('stops once: closes the stream, stops recognition, closes the recognizer, ignores later writes', async () => {
    const sdk = fakeSdk({ stopError: 'already stopped' });
    const rec = await createRecognizer(base, sdk.load);
    await rec.start();
    await Promise.all([rec.stop(), rec.stop()]);
    expect(sdk.made).toMatchObject({ streamClosed: 1, stoppedContinuous: 1, closed: 1 });
    rec.write(Int16Array.from([1]));
    expect(sdk.made.writes).toEqual([]);
  });

  it('with drainMs waits for the session to stop (the last result) but not longer than drainMs', async () => {
    vi.useFakeTimers();
    try {
      const sdk = fakeSdk();
      const rec = await createRecognizer(base, sdk.load);
      let done = false;
      const stopping = rec.stop({ drainMs: 1500 }).then(() => (done = true));
      await vi.advanceTimersByTimeAsync(100);
      expect(sdk.made.streamClosed).toBe(1);
      expect(done).toBe(false);
      sdk.recognizer().sessionStopped?.(null, {});
      await stopping;
      expect(sdk.made.closed).toBe(1);

      const sdk2 = fakeSdk();
      const rec2 = await createRecognizer(base, sdk2.load);
      const stopping2 = rec2.stop({ drainMs: 1500 });
      await vi.advanceTimersByTimeAsync(1500);
      await stopping2;
      expect(sdk2.made.closed).toBe(1);
    } finally {
      vi.useRealTimers();
    }
  });
});
