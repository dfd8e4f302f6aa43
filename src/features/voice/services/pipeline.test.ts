import { afterEach, describe, expect, it, vi } from 'vitest';
import type { VadEvent } from '../workers/protocol.ts';
import type { VadClient } from '../workers/vad.client.ts';
import { allReleased, fakeBrowser } from './testing/fakeBrowser.ts';
import type { VoicePipeline, WarmVoice } from './pipeline.ts';
import {
  browserVoiceDeps,
  micErrorKind,
  MIC_CONSTRAINTS,
  REOPEN_TIMEOUT_MS,
  VoicePipelineError,
  WARM_ANSWER_TIMEOUT_MS,
  WORKER_CALL_TIMEOUT_MS,
  startVoicePipeline,
  SUSPENDED_GRACE_MS,
} from './pipeline.ts';

const settle = () => new Promise((r) => setTimeout(r, 10));

afterEach(() => {
  vi.useRealTimers();
});


/** Stops a call keeping its detector, which must come back. */
async function keptBack(pipeline: VoicePipeline): Promise<WarmVoice> {
  const warm = await pipeline.stop({ keepWarm: true });
  if (!warm) throw new Error('the detector did not come back');
  return warm;
}

describe('startVoicePipeline', () => {
  it('asks for the spec microphone, loads the worklet and hands it the recognizer port, then the VAD port once the detector has loaded', async () => {
    const b = fakeBrowser();
    const pipeline = await startVoicePipeline({}, b.deps);
    expect(b.deps.getUserMedia).toHaveBeenCalledWith(MIC_CONSTRAINTS);
    expect(MIC_CONSTRAINTS.audio).toMatchObject({ channelCount: 1, noiseSuppression: true, echoCancellation: true, autoGainControl: true });
    expect(pipeline.sampleRate).toBe(48000);
    expect(await pipeline.detecting).toBe(true);
    await settle();
    const [worklet] = b.worklets;
    expect(worklet?.name).toBe('capture-processor');
    expect(worklet?.options).toMatchObject({ numberOfOutputs: 0, channelCount: 1, channelCountMode: 'explicit', processorOptions: { frameSamples: 1536, targetSampleRate: 16000 } });
    const [ports, vadPort] = worklet?.control ?? [];
    expect(ports?.type).toBe('ports');
    expect(ports?.type === 'ports' && ports.vad).toBeNull();
    expect(ports?.type === 'ports' && typeof ports.asr.postMessage).toBe('function');
    expect(vadPort?.type === 'vadPort' && typeof vadPort.port.postMessage).toBe('function');
    expect(b.vads[0]?.adopted).toHaveLength(1);
    expect(b.made.sources[0]?.connected).toHaveLength(1);
    await pipeline.stop();
  });

  it('without voice detection (hold to talk): no VAD at all, the worklet feeds only the recognizer', async () => {
    // A model that never loads: a pipeline without voice detection must not wait for it.
    const b = fakeBrowser({ vadReady: new Promise(() => {}) });
    const seen: number[][] = [];
    const pipeline = await startVoicePipeline({ detectVoice: false, onPcm16: (pcm) => seen.push(Array.from(pcm)) }, b.deps);
    expect(b.deps.createVad).not.toHaveBeenCalled();
    await settle();
    const ports = b.worklets[0]?.control[0];
    if (ports?.type !== 'ports') throw new Error('no ports message');
    expect(ports.vad).toBeNull();
    ports.asr.postMessage(Int16Array.from([4, 5]));
    await pipeline.mute(true);
    await pipeline.setThresholds({ positiveSpeechThreshold: 0.97 });
    await settle();
    expect(seen).toEqual([[4, 5]]);
    expect(b.worklets[0]?.control.map((c) => c.type)).toEqual(['ports', 'pause']);
    expect(await pipeline.stop({ keepWarm: true })).toBeUndefined();
    await settle();
    expect(allReleased(b.live)).toEqual({ contexts: 0, tracks: 0, vads: 0, nodes: 0 });
    await expect(startVoicePipeline({ detectVoice: false, warm: { vad: {} as VadClient, dispose: async () => {} } }, b.deps)).rejects.toThrow(TypeError);
  });

  // On a loaded phone the model took 17 to 26 s to load, and a call that waited for it
  // heard the visitor's first question only as a backlog, cut or garbled.
  it('starts as soon as the microphone is captured, before the model is ready; the detector then hears the live audio only', async () => {
    let modelLoaded!: () => void;
    const b = fakeBrowser({ vadReady: new Promise((r) => (modelLoaded = r)) });
    const pcm: number[][] = [];
    const pipeline = await startVoicePipeline({ onPcm16: (p) => pcm.push(Array.from(p)) }, b.deps);
    let joined: boolean | null = null;
    void pipeline.detecting.then((j) => (joined = j));
    await settle();
    const ports = b.worklets[0]?.control[0];
    if (ports?.type !== 'ports') throw new Error('no ports message');
    // The recognizer hears the microphone already; nothing goes to voice detection yet.
    expect(ports.vad).toBeNull();
    ports.asr.postMessage(Int16Array.from([7]));
    await settle();
    expect(pcm).toEqual([[7]]);
    expect(joined).toBeNull();
    modelLoaded();
    expect(await pipeline.detecting).toBe(true);
    await settle();
    const vadPort = b.worklets[0]?.control[1];
    if (vadPort?.type !== 'vadPort') throw new Error('the detector got no frame port');
    vadPort.port.postMessage(Float32Array.from([0.5]));
    await settle();
    expect(b.vads[0]!.frames.map((f) => Array.from(f as Float32Array))).toEqual([[0.5]]);
    await pipeline.stop();
    await settle();
    expect(allReleased(b.live)).toEqual({ contexts: 0, tracks: 0, vads: 0, nodes: 0 });
  });

  it('thresholds and mute asked for while the detector loads are its settings when it joins', async () => {
    let modelLoaded!: () => void;
    const b = fakeBrowser({ vadReady: new Promise((r) => (modelLoaded = r)) });
    const pipeline = await startVoicePipeline({}, b.deps);
    await pipeline.setThresholds({ positiveSpeechThreshold: 0.97 });
    await pipeline.mute(true);
    modelLoaded();
    expect(await pipeline.detecting).toBe(true);
    expect(b.vads[0]?.thresholds).toEqual([{ positiveSpeechThreshold: 0.97 }]);
    expect(b.vads[0]?.paused).toEqual([true]);
    await pipeline.stop();
  });

  it('a call stopped while its loaded detector takes its settings gives it no frame port, and says it never joined', async () => {
    const b = fakeBrowser();
    const pipeline = await startVoicePipeline({}, b.deps);
    const vad = b.vads[0]!;
    let answer!: () => void;
    vad.setThresholds = () => new Promise<void>((resolve) => (answer = resolve));
    await pipeline.setThresholds({ positiveSpeechThreshold: 0.97 });
    await settle();
    const stopping = pipeline.stop({ keepWarm: true });
    answer();
    expect(await stopping).toMatchObject({ vad });
    expect(await pipeline.detecting).toBe(false);
    await settle();
    expect(vad.adopted).toHaveLength(0);
    expect(b.worklets[0]?.control.map((c) => c.type)).toEqual(['ports', 'stop']);
  });

  it('a call stopped while its detector loads stops the load; one stopped keeping it waits for it and keeps it', async () => {
    let modelLoaded!: () => void;
    const b = fakeBrowser({ vadReady: new Promise((r) => (modelLoaded = r)) });
    const dropped = await startVoicePipeline({}, b.deps);
    await dropped.stop();
    expect(await dropped.detecting).toBe(false);
    await settle();
    expect(allReleased(b.live)).toEqual({ contexts: 0, tracks: 0, vads: 0, nodes: 0 });
    const kept = await startVoicePipeline({}, b.deps);
    const stopping = kept.stop({ keepWarm: true });
    await settle();
    expect(allReleased(b.live)).toEqual({ contexts: 0, tracks: 0, vads: 1, nodes: 0 });
    modelLoaded();
    expect(await stopping).toMatchObject({ vad: b.vads[1] });
    expect(await kept.detecting).toBe(false);
    expect(b.vads[1]?.adopted).toHaveLength(0);
  });

  it('a call stopped keeping its detector still loading: `abandon` stops that load, and nothing comes back', async () => {
    const b = fakeBrowser({ vadReady: new Promise(() => {}) });
    const pipeline = await startVoicePipeline({}, b.deps);
    const abandon = new AbortController();
    const stopping = pipeline.stop({ keepWarm: true, abandon: abandon.signal });
    await settle();
    expect(allReleased(b.live)).toEqual({ contexts: 0, tracks: 0, vads: 1, nodes: 0 });
    abandon.abort();
    expect(await stopping).toBeUndefined();
    expect(allReleased(b.live)).toEqual({ contexts: 0, tracks: 0, vads: 0, nodes: 0 });
  });

  it('passes VAD events and recognizer PCM to the callbacks', async () => {
    const b = fakeBrowser();
    const seen: unknown[] = [];
    const pipeline = await startVoicePipeline(
      {
        onSpeechStart: (e) => seen.push(['start', e.frame]),
        onSpeechEnd: (e) => seen.push(['end', e.endFrame]),
        onMisfire: () => seen.push(['misfire']),
        onPcm16: (pcm) => seen.push(['pcm', Array.from(pcm)]),
        onError: (e) => seen.push(['error', e.kind]),
      },
      b.deps,
    );
    await settle();
    const vad = b.vads[0]!;
    vad.emit({ type: 'speechStart', frame: 10 });
    vad.emit({ type: 'speechEnd', frame: 0, audio: new Float32Array(1), startFrame: 10, endFrame: 30, speechFrames: 9, audioStartFrame: 0 } as VadEvent);
    vad.emit({ type: 'misfire', startFrame: 40, endFrame: 48, speechFrames: 1 });
    // A skipped frame is only logged; an error the worker cannot go on from ends the call.
    vad.emit({ type: 'warning', message: 'inference failed, frame skipped' });
    vad.emit({ type: 'error', message: 'voice detection stopped after 3 failures' });
    const ports = b.worklets[0]?.control[0];
    if (ports?.type !== 'ports') throw new Error('no ports message');
    ports.asr.postMessage(Int16Array.from([1, 2, 3]));
    ports.asr.postMessage('garbage');
    await settle();
    expect(seen).toEqual([['start', 10], ['end', 30], ['misfire'], ['error', 'failed'], ['pcm', [1, 2, 3]]]);
    await pipeline.stop();
  });

  it('mutes: the worklet pauses, the track is disabled and the VAD drops its segment', async () => {
    const b = fakeBrowser();
    const pipeline = await startVoicePipeline({}, b.deps);
    await pipeline.detecting;
    await pipeline.mute(true);
    expect(b.track().enabled).toBe(false);
    await pipeline.mute(false);
    await pipeline.setThresholds({ positiveSpeechThreshold: 0.97 });
    await settle();
    expect(b.worklets[0]?.control.map((c) => c.type)).toEqual(['ports', 'vadPort', 'pause', 'resume']);
    expect(b.vads[0]?.paused).toEqual([true, false]);
    expect(b.vads[0]?.thresholds).toEqual([{ positiveSpeechThreshold: 0.97 }]);
    await pipeline.stop();
    await pipeline.mute(true); // after stop: a no-op, not a throw
  });

  it.each([
    ['NotAllowedError', 'denied'],
    ['NotFoundError', 'unavailable'],
    ['NotReadableError', 'failed'],
    ['OverconstrainedError', 'failed'],
    ['SecurityError', 'permission'],
    ['InvalidStateError', 'permission'],
  ])('maps a %s from getUserMedia to %s and releases what was started', async (name, kind) => {
    const b = fakeBrowser({ micError: name });
    const error = await startVoicePipeline({}, b.deps).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(VoicePipelineError);
    expect((error as VoicePipelineError).kind).toBe(kind);
    expect(allReleased(b.live)).toEqual({ contexts: 0, tracks: 0, vads: 0, nodes: 0 });
  });

  it('a page that may not ask for the microphone (not a secure context) fails as "permission", a browser without capture as "unavailable"', async () => {
    const mediaDevices = Object.getOwnPropertyDescriptor(navigator, 'mediaDevices');
    Object.defineProperty(navigator, 'mediaDevices', { value: undefined, configurable: true });
    try {
      vi.stubGlobal('isSecureContext', false);
      await expect(browserVoiceDeps.getUserMedia(MIC_CONSTRAINTS)).rejects.toMatchObject({ name: 'SecurityError' });
      expect(micErrorKind(await browserVoiceDeps.getUserMedia(MIC_CONSTRAINTS).catch((e: unknown) => e))).toBe('permission');
      vi.stubGlobal('isSecureContext', true);
      expect(micErrorKind(await browserVoiceDeps.getUserMedia(MIC_CONSTRAINTS).catch((e: unknown) => e))).toBe('unavailable');
    } finally {
      vi.unstubAllGlobals();
      if (mediaDevices) Object.defineProperty(navigator, 'mediaDevices', mediaDevices);
      else delete (navigator as { mediaDevices?: unknown }).mediaDevices;
    }
  });

  it('the audio session is play-and-record from before the microphone opens until stop, then playback', async () => {
    const b = fakeBrowser();
    const sessions: string[] = [];
    const getUserMedia = b.deps.getUserMedia;
    const deps = {
      ...b.deps,
      setAudioSession: vi.fn((type: string) => sessions.push(type)),
      getUserMedia: vi.fn((constraints: MediaStreamConstraints) => {
        sessions.push('getUserMedia');
        return getUserMedia(constraints);
      }),
    };
    const pipeline = await startVoicePipeline({}, deps);
    expect(sessions).toEqual(['play-and-record', 'getUserMedia']);
    await pipeline.stop();
    expect(sessions).toEqual(['play-and-record', 'getUserMedia', 'playback']);
  });

  it('the audio session goes back to playback when the start fails', async () => {
    const b = fakeBrowser({ noAudioWorklet: true });
    const setAudioSession = vi.fn();
    await expect(startVoicePipeline({}, { ...b.deps, setAudioSession })).rejects.toMatchObject({ kind: 'unavailable' });
    expect(setAudioSession.mock.calls.map(([type]) => type)).toEqual(['play-and-record', 'playback']);
  });

  it('a VAD that cannot load is reported as "failed" (the call ends); stop releases everything', async () => {
    const b = fakeBrowser({ vadError: 'model 404' });
    const errors: string[] = [];
    const pipeline = await startVoicePipeline({ onError: (e) => errors.push(`${e.kind}: ${e.message}`) }, b.deps);
    expect(await pipeline.detecting).toBe(false);
    expect(errors).toEqual([expect.stringMatching(/^failed: .*model 404/)]);
    await pipeline.stop();
    await settle();
    expect(allReleased(b.live)).toEqual({ contexts: 0, tracks: 0, vads: 0, nodes: 0 });
  });

  it('a browser without AudioWorklet: a clear error, and the microphone, context and VAD it had started are released', async () => {
    const b = fakeBrowser({ noAudioWorklet: true });
    await expect(startVoicePipeline({}, b.deps)).rejects.toMatchObject({ kind: 'unavailable', message: 'this browser has no AudioWorklet' });
    await settle();
    expect(b.made.vadCreated).toBe(1);
    expect(allReleased(b.live)).toEqual({ contexts: 0, tracks: 0, vads: 0, nodes: 0 });
  });

  it('gives up when the AudioContext never starts (no user gesture)', async () => {
    vi.useFakeTimers();
    const b = fakeBrowser({ resume: 'never' });
    const pending = startVoicePipeline({}, b.deps).catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(3000);
    const error = await pending;
    expect(error).toMatchObject({ kind: 'failed', message: expect.stringContaining('suspended') });
    expect(allReleased(b.live)).toEqual({ contexts: 0, tracks: 0, vads: 0, nodes: 0 });
  });

  it('rejects with the abort reason and releases everything when aborted while starting', async () => {
    const b = fakeBrowser();
    const abort = new AbortController();
    const pending = startVoicePipeline({ signal: abort.signal }, b.deps);
    abort.abort(new Error('call cancelled'));
    await expect(pending).rejects.toThrow('call cancelled');
    expect(allReleased(b.live)).toEqual({ contexts: 0, tracks: 0, vads: 0, nodes: 0 });
  });

  it('a microphone that goes away while another opens (a headset unplugged): the call goes on with the new one', async () => {
    const b = fakeBrowser();
    const onError = vi.fn();
    const pipeline = await startVoicePipeline({ onError }, b.deps);
    await pipeline.mute(true);
    const first = b.track();
    first.stop();
    first.dispatchEvent(new Event('ended'));
    await settle();
    expect(b.deps.getUserMedia).toHaveBeenCalledTimes(2);
    expect(onError).not.toHaveBeenCalled();
    const second = b.track();
    expect(second).not.toBe(first);
    // Muted before: muted still, and the worklet now hears the new microphone only.
    expect(second.enabled).toBe(false);
    expect(b.made.sources).toHaveLength(2);
    expect(b.made.sources[0]?.disconnected).toBe(1);
    expect(b.made.sources[1]?.connected).toHaveLength(1);
    // And it is watched in turn: when it too goes with nothing to replace it, the call ends.
    vi.mocked(b.deps.getUserMedia).mockRejectedValueOnce(new DOMException('none', 'NotFoundError'));
    second.dispatchEvent(new Event('ended'));
    await settle();
    expect(onError).toHaveBeenCalledWith(expect.objectContaining({ kind: 'unavailable', message: expect.stringContaining('no microphone opens again') }));
    await pipeline.stop();
    await settle();
    expect(allReleased(b.live)).toEqual({ contexts: 0, tracks: 0, vads: 0, nodes: 0 });
  });

  it('a microphone that goes away with none to open again (permission revoked) is reported as "unavailable"', async () => {
    const b = fakeBrowser();
    const onError = vi.fn();
    const pipeline = await startVoicePipeline({ onError }, b.deps);
    vi.mocked(b.deps.getUserMedia).mockRejectedValueOnce(new DOMException('revoked', 'NotAllowedError'));
    b.track().dispatchEvent(new Event('ended'));
    await settle();
    expect(onError).toHaveBeenCalledWith(expect.objectContaining({ kind: 'unavailable' }));
    await pipeline.stop();
  });

  it('a microphone that goes away and whose reopening never answers ends the call after REOPEN_TIMEOUT_MS', async () => {
    vi.useFakeTimers();
    const b = fakeBrowser();
    const onError = vi.fn();
    const pipeline = await startVoicePipeline({ onError }, b.deps);
    vi.mocked(b.deps.getUserMedia).mockReturnValueOnce(new Promise(() => {}));
    b.track().dispatchEvent(new Event('ended'));
    await vi.advanceTimersByTimeAsync(REOPEN_TIMEOUT_MS - 1);
    expect(onError).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(1);
    expect(onError).toHaveBeenCalledWith(expect.objectContaining({ kind: 'unavailable' }));
    await pipeline.stop();
  });

  it('a microphone opened again after the call stopped is closed at once', async () => {
    const b = fakeBrowser();
    const pipeline = await startVoicePipeline({}, b.deps);
    let answer: (stream: MediaStream) => void = () => undefined;
    vi.mocked(b.deps.getUserMedia).mockReturnValueOnce(new Promise((resolve) => (answer = resolve)));
    b.track().dispatchEvent(new Event('ended'));
    await pipeline.stop();
    const late = Object.assign(new EventTarget(), { enabled: true, stop: vi.fn() });
    answer({ getTracks: () => [late], getAudioTracks: () => [late] } as unknown as MediaStream);
    await settle();
    expect(late.stop).toHaveBeenCalled();
  });

  it('releases everything on stop, over 10 start/stop cycles', async () => {
    const b = fakeBrowser();
    for (let i = 0; i < 10; i++) {
      const pipeline = await startVoicePipeline({ onSpeechStart: () => {} }, b.deps);
      expect(allReleased(b.live)).toEqual({ contexts: 1, tracks: 1, vads: 1, nodes: 1 });
      await Promise.all([pipeline.stop(), pipeline.stop()]);
      await settle();
      expect(allReleased(b.live)).toEqual({ contexts: 0, tracks: 0, vads: 0, nodes: 0 });
    }
    expect(b.made.sources.every((s) => s.disconnected === 1)).toBe(true);
    expect(b.made.contexts).toBe(10);
  });

  it('mute and thresholds do not wait forever on a VAD worker that stopped answering', async () => {
    vi.useFakeTimers();
    const b = fakeBrowser();
    const pipeline = await startVoicePipeline({}, b.deps);
    await pipeline.detecting;
    const vad = b.vads[0]!;
    vad.setPaused = () => new Promise(() => {});
    vad.setThresholds = () => new Promise(() => {});
    let done = 0;
    void pipeline.mute(true).then(() => done++);
    void pipeline.setThresholds({ positiveSpeechThreshold: 0.97 }).then(() => done++);
    await vi.advanceTimersByTimeAsync(WORKER_CALL_TIMEOUT_MS - 100);
    expect(done).toBe(0);
    await vi.advanceTimersByTimeAsync(200);
    expect(done).toBe(2);
    // The track was muted all the same.
    expect(b.track().enabled).toBe(false);
    await pipeline.stop();
  });

  it("the echo gate follows the avatar's stream: setFarEnd moves the worklet's second input to the new one", async () => {
    const b = fakeBrowser();
    const withAudio = () => ({ getAudioTracks: () => [{}], getTracks: () => [{}] }) as unknown as MediaStream;
    const first = withAudio();
    const pipeline = await startVoicePipeline({ farEnd: first }, b.deps);
    await settle();
    expect(b.worklets[0]?.options).toMatchObject({ numberOfInputs: 2, processorOptions: { echoGateDb: -18 } });
    // The microphone, then the avatar into input 1.
    expect(b.made.sources).toHaveLength(2);
    expect(b.made.sources[1]?.connected).toHaveLength(1);
    expect(pipeline.setFarEnd(withAudio())).toBe(true);
    expect(b.made.sources[1]?.disconnected).toBe(1);
    expect(b.made.sources[2]?.connected).toHaveLength(1);
    // A stream without audio (or none): nothing to compare with, the gate lets everything through.
    expect(pipeline.setFarEnd({ getAudioTracks: () => [], getTracks: () => [] } as unknown as MediaStream)).toBe(false);
    expect(b.made.sources[2]?.disconnected).toBe(1);
    expect(b.made.sources).toHaveLength(3);
    expect(pipeline.setFarEnd(null)).toBe(false);
    await pipeline.stop();
    expect(pipeline.setFarEnd(withAudio())).toBe(false);
  });

  it('a call started while there is no avatar stream still builds the gate, which takes the stream once it comes', async () => {
    const b = fakeBrowser();
    const pipeline = await startVoicePipeline({ farEnd: null }, b.deps);
    await settle();
    expect(b.worklets[0]?.options).toMatchObject({ numberOfInputs: 2 });
    expect(b.made.sources).toHaveLength(1);
    expect(pipeline.setFarEnd({ getAudioTracks: () => [{}], getTracks: () => [{}] } as unknown as MediaStream)).toBe(true);
    expect(b.made.sources[1]?.connected).toHaveLength(1);
    await pipeline.stop();
  });

  it('hold to talk (no voice detection) has no gate: one input, and setFarEnd changes nothing', async () => {
    const b = fakeBrowser();
    const pipeline = await startVoicePipeline({ detectVoice: false, farEnd: null }, b.deps);
    await settle();
    expect(b.worklets[0]?.options).toMatchObject({ numberOfInputs: 1 });
    expect(pipeline.setFarEnd({ getAudioTracks: () => [{}], getTracks: () => [{}] } as unknown as MediaStream)).toBe(false);
    expect(b.made.sources).toHaveLength(1);
    await pipeline.stop();
  });

  // Issue 29: iOS moves the context to 'interrupted' for a phone call or Siri, and asking an
  // interrupted context to resume freezes it (stream-video-js #2249).
  it('another app taking the audio (iOS: interrupted) pauses the call at once; nothing asks for the audio until the system gives it back, and then the call goes on', async () => {
    vi.useFakeTimers();
    const b = fakeBrowser();
    const heard: string[] = [];
    const errors: string[] = [];
    const pipeline = await startVoicePipeline(
      { onAudioLost: (state) => heard.push(`lost ${state}`), onAudioBack: () => heard.push('back'), onError: (e) => errors.push(e.kind) },
      b.deps,
    );
    const asked = b.made.resumes.length;
    b.context().interrupt('interrupted');
    expect(heard).toEqual(['lost interrupted']);
    // A phone call lasts: no error, and never a resume() while interrupted, whatever the page does.
    document.dispatchEvent(new Event('visibilitychange'));
    document.dispatchEvent(new Event('pointerdown'));
    await vi.advanceTimersByTimeAsync(120_000);
    expect(b.made.resumes.slice(asked)).toEqual([]);
    expect(errors).toEqual([]);
    // The interruption ends: WebKit moves the context to 'suspended', which is asked back.
    b.context().interrupt('suspended');
    expect(b.made.resumes.slice(asked)).toEqual(['suspended']);
    expect(b.context().state).toBe('running');
    expect(heard).toEqual(['lost interrupted', 'back']);
    await pipeline.stop();
    expect(errors).toEqual([]);
  });

  it('a context the browser suspends is asked back at once: back within the grace the call never hears of it; not back, the call pauses and a tap asks again', async () => {
    vi.useFakeTimers();
    const b = fakeBrowser();
    const heard: string[] = [];
    const pipeline = await startVoicePipeline({ onAudioLost: (state) => heard.push(`lost ${state}`), onAudioBack: () => heard.push('back') }, b.deps);
    b.context().interrupt('suspended');
    expect(b.context().state).toBe('running');
    await vi.advanceTimersByTimeAsync(SUSPENDED_GRACE_MS * 2);
    expect(heard).toEqual([]);

    b.audio.resumable = false;
    b.context().interrupt('suspended');
    await vi.advanceTimersByTimeAsync(SUSPENDED_GRACE_MS - 1);
    expect(heard).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(heard).toEqual(['lost suspended']);
    b.audio.resumable = true;
    document.dispatchEvent(new Event('pointerdown'));
    expect(b.context().state).toBe('running');
    expect(heard).toEqual(['lost suspended', 'back']);
    await pipeline.stop();
    // Closing the context at stop is neither a loss nor an error.
    expect(heard).toEqual(['lost suspended', 'back']);
  });

  it('a context closed under the call is the microphone gone', async () => {
    const b = fakeBrowser();
    const errors: string[] = [];
    await startVoicePipeline({ onError: (e) => errors.push(`${e.kind}: ${e.message}`) }, b.deps);
    b.context().interrupt('closed');
    expect(errors).toEqual(['unavailable: the audio context was closed']);
  });

  it('never keeps a VAD that gave up (an error) or does not answer: it is disposed at stop', async () => {
    vi.useFakeTimers();
    const b = fakeBrowser();
    const broken = await startVoicePipeline({ onError: () => {} }, b.deps);
    await broken.detecting;
    b.vads[0]!.emit({ type: 'error', message: 'voice detection stopped after 3 failures' });
    expect(await broken.stop({ keepWarm: true })).toBeUndefined();
    const silent = await startVoicePipeline({}, b.deps);
    await silent.detecting;
    b.vads[1]!.setPaused = () => new Promise(() => {});
    const stopping = silent.stop({ keepWarm: true });
    await vi.advanceTimersByTimeAsync(WARM_ANSWER_TIMEOUT_MS + 100);
    expect(await stopping).toBeUndefined();
    expect(allReleased(b.live)).toEqual({ contexts: 0, tracks: 0, vads: 0, nodes: 0 });
  });

  it('a call stopped while the handed-over VAD still loads does not wait for it; the VAD is disposed when it arrives', async () => {
    const b = fakeBrowser();
    const first = await startVoicePipeline({}, b.deps);
    const kept = await keptBack(first);
    let loaded!: (w: typeof kept) => void;
    const second = await startVoicePipeline({ warm: new Promise((r) => (loaded = r)) }, b.deps);
    await second.stop();
    expect(await second.detecting).toBe(false);
    expect(allReleased(b.live)).toMatchObject({ contexts: 0, tracks: 0, vads: 1 });
    loaded(kept);
    await settle();
    expect(allReleased(b.live)).toEqual({ contexts: 0, tracks: 0, vads: 0, nodes: 0 });
  });

  it('a refused microphone is reported without waiting for the handed-over VAD to load', async () => {
    const b = fakeBrowser({ micError: 'NotAllowedError' });
    let loaded = false;
    const warm = new Promise<null>((r) => setTimeout(() => ((loaded = true), r(null)), 200));
    await expect(startVoicePipeline({ warm }, b.deps)).rejects.toMatchObject({ kind: 'denied' });
    expect(loaded).toBe(false);
  });

  it('a kept VAD whose worker does not answer is replaced by a new one', async () => {
    vi.useFakeTimers();
    const b = fakeBrowser();
    const first = await startVoicePipeline({}, b.deps);
    const kept = await keptBack(first);
    b.vads[0]!.reset = () => new Promise(() => {});
    const starting = startVoicePipeline({ warm: kept }, b.deps);
    await vi.advanceTimersByTimeAsync(WARM_ANSWER_TIMEOUT_MS + 100);
    const second = await starting;
    expect(b.made.vadCreated).toBe(2);
    expect(allReleased(b.live)).toMatchObject({ vads: 1 });
    await second.stop();
  });

  // On a loaded machine the kept detector answered after the hand-over had given up on it:
  // its late restore took the call's frame port, so the new detector got none and the call
  // heard nothing at all (a question over the avatar never arrived).
  it('a kept VAD that answers after the hand-over gave up on it does not take the call\'s frames: the new one does', async () => {
    vi.useFakeTimers();
    const b = fakeBrowser();
    const first = await startVoicePipeline({}, b.deps);
    await first.detecting;
    const kept = await keptBack(first);
    let answerLate: () => void = () => {};
    b.vads[0]!.reset = () => new Promise<void>((resolve) => (answerLate = resolve));
    const starting = startVoicePipeline({ warm: kept }, b.deps);
    await vi.advanceTimersByTimeAsync(WARM_ANSWER_TIMEOUT_MS + 100);
    const second = await starting;
    await second.detecting;
    answerLate();
    await vi.advanceTimersByTimeAsync(100);
    expect(b.made.vadCreated).toBe(2);
    // The kept one adopted the first call's port only; the call's port went to the new one.
    expect(b.vads[0]!.adopted).toHaveLength(1);
    expect(b.vads[1]!.adopted).toHaveLength(1);
    expect(b.vads[1]!.adopted[0]).not.toBe(b.vads[0]!.adopted[0]);
    await second.stop();
  });

  // Ten calls in a row on a loaded 2-core machine made three workers: a kept detector still
  // working through its last frames answered after the 2 s a control call may take, and was
  // thrown away for a new one that took far longer to load.
  it('a kept VAD that answers late but within WARM_ANSWER_TIMEOUT_MS is kept at stop and taken by the next call', async () => {
    vi.useFakeTimers();
    const b = fakeBrowser();
    const first = await startVoicePipeline({}, b.deps);
    const late = <T,>(value: T) => new Promise<T>((resolve) => setTimeout(() => resolve(value), WORKER_CALL_TIMEOUT_MS + 500));
    b.vads[0]!.setPaused = () => late(undefined);
    const stopping = first.stop({ keepWarm: true });
    await vi.advanceTimersByTimeAsync(WORKER_CALL_TIMEOUT_MS + 1100);
    const kept = await stopping;
    if (!kept) throw new Error('the detector did not come back');
    expect(kept).toMatchObject({ vad: b.vads[0] });
    b.vads[0]!.reset = () => late(undefined);
    const starting = startVoicePipeline({ warm: kept as NonNullable<typeof kept> }, b.deps);
    await vi.advanceTimersByTimeAsync(3 * (WORKER_CALL_TIMEOUT_MS + 1100));
    const second = await starting;
    expect(b.made.vadCreated).toBe(1);
    await second.stop();
  });

  // A call started while the session's detector still loads: the visitor's first words were
  // lost until it arrived (capture was wired only then), and a question spoken at once came
  // out cut ("The explorer." for "where is the nearest store").
  it('captures from the moment the microphone opens while a handed-over VAD still loads: the recognizer hears that time, the VAD the audio after it joins', async () => {
    const b = fakeBrowser();
    const first = await startVoicePipeline({}, b.deps);
    const kept = await keptBack(first);
    let loaded!: (w: typeof kept) => void;
    const pcm: number[][] = [];
    const second = await startVoicePipeline({ warm: new Promise((r) => (loaded = r)), onPcm16: (p) => pcm.push(Array.from(p)) }, b.deps);
    await settle();
    const ports = b.worklets[1]?.control[0];
    if (ports?.type !== 'ports') throw new Error('capture was not wired before the detector arrived');
    ports.asr.postMessage(Int16Array.from([7]));
    await settle();
    expect(pcm).toEqual([[7]]);
    loaded(kept);
    expect(await second.detecting).toBe(true);
    await settle();
    const vadPort = b.worklets[1]?.control[1];
    if (vadPort?.type !== 'vadPort') throw new Error('the kept detector got no frame port');
    vadPort.port.postMessage(Float32Array.from([0.2]));
    await settle();
    const vad = b.vads[0]!;
    expect(vad.frames.slice(-1).map((f) => Array.from(f as Float32Array))).toEqual([[Math.fround(0.2)]]);
    await second.stop();
  });

  it('takes over a VAD still loading once it has loaded, and makes its own if it could not load', async () => {
    const b = fakeBrowser();
    const first = await startVoicePipeline({}, b.deps);
    const kept = await keptBack(first);
    let loaded!: (w: typeof kept) => void;
    const second = await startVoicePipeline({ warm: new Promise((r) => (loaded = r)) }, b.deps);
    let joined = false;
    void second.detecting.then(() => (joined = true));
    await settle();
    expect(joined).toBe(false);
    loaded(kept);
    expect(await second.detecting).toBe(true);
    expect(b.made.vadCreated).toBe(1);
    await second.stop();
    const third = await startVoicePipeline({ warm: Promise.resolve(null) }, b.deps);
    expect(await third.detecting).toBe(true);
    expect(b.made.vadCreated).toBe(2);
    await third.stop();
    await settle();
    expect(allReleased(b.live)).toEqual({ contexts: 0, tracks: 0, vads: 0, nodes: 0 });
  });

  it('keeps the VAD warm when asked and reuses it, restoring its thresholds', async () => {
    const b = fakeBrowser();
    const first = await startVoicePipeline({}, b.deps);
    await first.setThresholds({ positiveSpeechThreshold: 0.98 });
    const warm = await keptBack(first);
    expect(allReleased(b.live)).toMatchObject({ contexts: 0, tracks: 0, vads: 1 });
    const second = await startVoicePipeline({ warm }, b.deps);
    expect(await second.detecting).toBe(true);
    expect(b.made.vadCreated).toBe(1);
    const vad = b.vads[0]!;
    expect(vad.resets).toBe(1);
    expect(vad.paused).toEqual([true, false]);
    expect(vad.thresholds.at(-1)).toEqual({ positiveSpeechThreshold: 0.9, negativeSpeechThreshold: 0.65 });
    await second.stop();
    await settle();
    expect(allReleased(b.live)).toEqual({ contexts: 0, tracks: 0, vads: 0, nodes: 0 });
  });
});

describe('prefetchVoice', () => {
  it('loads the Speech SDK and fetches the pipeline files without touching audio, never rejecting', async () => {
    const { prefetchVoice } = await import('./pipeline.ts');
    const fetched: string[] = [];
    vi.stubGlobal(
      'fetch',
      vi.fn(async (url: string) => (fetched.push(url), { ok: !url.endsWith('.onnx'), status: 404, arrayBuffer: async () => new ArrayBuffer(0) })),
    );
    const audioContext = vi.fn();
    vi.stubGlobal('AudioContext', audioContext);
    try {
      await expect(prefetchVoice()).resolves.toBeUndefined();
      expect(fetched).toHaveLength(4);
      // The model failed, so the next call tries again; once all succeed it is not repeated.
      vi.stubGlobal('fetch', vi.fn(async (url: string) => (fetched.push(url), { ok: true, arrayBuffer: async () => new ArrayBuffer(0) })));
      await prefetchVoice();
      await prefetchVoice();
      expect(fetched).toHaveLength(8);
      expect(audioContext).not.toHaveBeenCalled();
    } finally {
      vi.unstubAllGlobals();
    }
  }, 20_000);
});
