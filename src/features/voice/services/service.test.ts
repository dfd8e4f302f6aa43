import { describe, expect, it } from 'vitest';
import { allReleased, fakeBrowser } from './testing/fakeBrowser.ts';
import { createVoiceService } from './service.ts';

/** A promise and its resolve, for a test to decide when something answers. */
function deferred<T>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

const settle = () => new Promise((r) => setTimeout(r, 10));

describe('the voice service keeps one voice detector for the calls of a session', () => {
  it('loads it ahead of the first call, hands it from call to call, and disposes it when released', async () => {
    const b = fakeBrowser();
    const voice = createVoiceService({ speechHost: null }, b.deps);
    voice.warmDetector();
    expect(b.made.vadCreated).toBe(1);
    for (let i = 0; i < 3; i += 1) {
      const call = await voice.startPipeline({});
      await Promise.all([call.stop(), call.stop()]);
      await settle();
      expect(allReleased(b.live)).toEqual({ contexts: 0, tracks: 0, vads: 1, nodes: 0 });
    }
    expect(b.made.vadCreated).toBe(1);
    expect(b.made.contexts).toBe(3);
    // Each call found it as it should be: reset, listening, default thresholds.
    expect(b.vads[0]!.resets).toBe(3);
    expect(b.vads[0]!.paused).toEqual([false, true, false, true, false, true]);
    expect(b.vads[0]!.thresholds).toEqual(Array(3).fill({ positiveSpeechThreshold: 0.9, negativeSpeechThreshold: 0.65 }));
    await voice.releaseDetector();
    expect(allReleased(b.live)).toEqual({ contexts: 0, tracks: 0, vads: 0, nodes: 0 });
  });

  it('a call started while the last one is still stopping waits for its detector instead of loading another', async () => {
    // On a busy phone the worker answers the stop's pause late, working through the call's last
    // frames; the next Start call often comes in that moment.
    const b = fakeBrowser();
    const voice = createVoiceService({ speechHost: null }, b.deps);
    voice.warmDetector();
    const first = await voice.startPipeline({});
    const vad = b.vads[0]!;
    const answerPause = deferred<void>();
    const setPaused = vad.setPaused.bind(vad);
    vad.setPaused = async (p: boolean) => {
      if (p) await answerPause.promise;
      return setPaused(p);
    };
    const stopped = first.stop();
    // The call starts at once; its detector joins once the last call has handed it back.
    const second = await voice.startPipeline({});
    let joined = false;
    void second.detecting.then(() => (joined = true));
    await settle();
    expect(joined).toBe(false);
    answerPause.resolve();
    await stopped;
    expect(await second.detecting).toBe(true);
    expect(b.made.vadCreated).toBe(1);
    expect(vad.resets).toBe(2);
    await second.stop();
    await voice.releaseDetector();
    await settle();
    expect(allReleased(b.live)).toEqual({ contexts: 0, tracks: 0, vads: 0, nodes: 0 });
  });

  it('a session that ends while its hung-up calls still wait for the detector loaded ahead of them stops that load', async () => {
    // On a slow phone the model takes many seconds: two calls hung up before it loaded each
    // hand it on still loading, and End chat must not leave it compiling for no one.
    const b = fakeBrowser({ vadReady: new Promise(() => {}) });
    const voice = createVoiceService({ speechHost: null }, b.deps);
    voice.warmDetector();
    for (let i = 0; i < 2; i += 1) {
      const call = await voice.startPipeline({});
      // Its stop settles once the detector is back (the call's saga does not wait for it).
      void call.stop();
      await settle();
      expect(allReleased(b.live)).toEqual({ contexts: 0, tracks: 0, vads: 1, nodes: 0 });
    }
    await voice.releaseDetector();
    await settle();
    expect(allReleased(b.live)).toEqual({ contexts: 0, tracks: 0, vads: 0, nodes: 0 });
    expect(b.made.vadCreated).toBe(1);
  });

  it('without one kept, a call makes its own and does not keep it after the session', async () => {
    const b = fakeBrowser();
    const voice = createVoiceService({ speechHost: null }, b.deps);
    const call = await voice.startPipeline({});
    expect(b.made.vadCreated).toBe(1);
    await call.stop();
    await settle();
    expect(allReleased(b.live)).toEqual({ contexts: 0, tracks: 0, vads: 0, nodes: 0 });
  });

  it('hold to talk leaves it alone; a call refused the microphone disposes it, and the next call makes its own', async () => {
    const b = fakeBrowser({ micError: 'NotAllowedError' });
    const voice = createVoiceService({ speechHost: null }, b.deps);
    voice.warmDetector();
    await expect(voice.startPipeline({ detectVoice: false })).rejects.toMatchObject({ kind: 'denied' });
    expect(b.vads[0]!.resets).toBe(0);
    await expect(voice.startPipeline({})).rejects.toMatchObject({ kind: 'denied' });
    await settle();
    expect(allReleased(b.live)).toEqual({ contexts: 0, tracks: 0, vads: 0, nodes: 0 });
    await expect(voice.startPipeline({})).rejects.toMatchObject({ kind: 'denied' });
    expect(b.made.vadCreated).toBe(2);
    await voice.releaseDetector();
    await settle();
    expect(allReleased(b.live)).toEqual({ contexts: 0, tracks: 0, vads: 0, nodes: 0 });
  });
});

describe("the echo gate hears the avatar at the volume the page plays it", () => {
  it('a call started while the avatar is lowered, and a call running when it comes back up, tell their gate', async () => {
    const b = fakeBrowser();
    const voice = createVoiceService({ speechHost: null }, b.deps);
    const volumes = (i: number) => b.worklets[i]!.control.filter((m) => m.type === 'farVolume').map((m) => (m as { volume: number }).volume);
    // The echo canceller's warm-up lowers a reply playing at the Start call tap, before the call's
    // pipeline exists: the gate must not compare the visitor with the avatar at full level.
    voice.setAvatarVolume(0.005);
    const call = await voice.startPipeline({});
    await settle();
    expect(volumes(0)).toEqual([0.005]);
    voice.setAvatarVolume(0.2);
    voice.setAvatarVolume(7);
    await settle();
    expect(volumes(0)).toEqual([0.005, 0.2, 1]);
    await call.stop();
    // A call that is over hears nothing more; the next one starts at the volume as it is.
    voice.setAvatarVolume(0.5);
    const hold = await voice.startPipeline({ detectVoice: false });
    await settle();
    expect(volumes(0)).toEqual([0.005, 0.2, 1]);
    expect(volumes(1)).toEqual([0.5]);
    await hold.stop();
    await voice.releaseDetector();
  });
});
