/**
 * Main-thread handle on the capture worklet (the counterpart of vad.client.ts): creates
 * the AudioWorkletNode, gives it the VAD's frame port and a recognizer port, connects the
 * microphone, and undoes all of it on stop().
 */
import captureWorkletUrl from './capture.worklet.ts?worker&url';
import {
  CAPTURE_PROCESSOR_NAME,
  FRAME_SAMPLES,
  TARGET_SAMPLE_RATE,
  type CaptureProcessorOptions,
  type WorkletControl,
  type WorkletReport,
} from './protocol.ts';

/** The worklet bundled with its dsp imports into one content-hashed file (Vite `?worker&url`). */
export const CAPTURE_WORKLET_URL: string = captureWorkletUrl;

export type CreateWorkletNode = (context: AudioContext, name: string, options: AudioWorkletNodeOptions) => AudioWorkletNode;

export interface CaptureOptions {
  context: AudioContext;
  stream: MediaStream;
  /**
   * The worklet end of the VAD's frame channel; transferred, so unusable here afterwards.
   * null: no voice detection yet (setVadPort gives one later) or at all: the worklet only
   * feeds the recognizer.
   */
  vadPort: MessagePort | null;
  /** 96 ms of 16 kHz mono 16-bit PCM for the recognizer. */
  onPcm16?(pcm: Int16Array): void;
  onReport?(report: WorkletReport): void;
  createNode?: CreateWorkletNode;
  /**
   * The avatar's received audio: the worklet's second input, for the echo gate
   * (CaptureProcessorOptions.echoGateDb). With echoGateDb the gate is built whatever this
   * is (null: no far end yet, and the gate stays open until setFarEnd gives one).
   */
  farEnd?: MediaStream | null;
  echoGateDb?: number;
}

export interface Capture {
  /** Pause stops posting at the source (and drops the partial frame); resume restarts it. */
  setPaused(paused: boolean): void;
  /** Idempotent; the processor ends, every port is closed, the graph is disconnected. */
  stop(): void;
  /** Voice detection joins: frames go to `port` (transferred) from now on, none from before. */
  setVadPort(port: MessagePort): void;
  /** Feeds the worklet from another stream (a new microphone) instead. */
  replaceStream(stream: MediaStream): void;
  /** Whether the avatar's voice can reach the microphone (false while the page holds it). */
  setFarEndAudible(audible: boolean): void;
  /** The avatar's voice plays at `volume` (0 to 1) of its received level: the gate scales it so. */
  setFarEndVolume(volume: number): void;
  /**
   * The avatar's audio now comes from `stream` (a media reconnect replaced it): the echo
   * gate compares the microphone with it from here on. Returns whether the gate has an
   * avatar audio track to compare with; always false for a capture built without a gate.
   */
  setFarEnd(stream: MediaStream | null): boolean;
}

const hasAudio = (stream: MediaStream | null | undefined): stream is MediaStream => !!stream && stream.getAudioTracks().length > 0;

const createBrowserNode: CreateWorkletNode = (context, name, options) => new AudioWorkletNode(context, name, options);

/** The worklet module must have been added to `context` (CAPTURE_WORKLET_URL) first. */
export function startCapture(options: CaptureOptions): Capture {
  const { context, stream, vadPort, createNode = createBrowserNode } = options;
  const gated = options.echoGateDb !== undefined;
  const asr = new MessageChannel();
  asr.port1.onmessage = (event: MessageEvent<unknown>) => {
    // Tag check rather than instanceof: the array comes from another realm's structured clone.
    if (Object.prototype.toString.call(event.data) === '[object Int16Array]') options.onPcm16?.(event.data as Int16Array);
  };

  const processorOptions: CaptureProcessorOptions = {
    frameSamples: FRAME_SAMPLES,
    targetSampleRate: TARGET_SAMPLE_RATE,
    ...(options.echoGateDb !== undefined ? { echoGateDb: options.echoGateDb } : {}),
  };
  // No outputs: a sink the engine pulls by itself, nothing to route to the speakers. One
  // explicit channel makes the engine downmix a stereo microphone before the worklet.
  const node = createNode(context, CAPTURE_PROCESSOR_NAME, {
    numberOfInputs: gated ? 2 : 1,
    numberOfOutputs: 0,
    channelCount: 1,
    channelCountMode: 'explicit',
    processorOptions,
  });
  const control = (message: WorkletControl, transfer: Transferable[] = []) => node.port.postMessage(message, transfer);
  node.port.onmessage = (event: MessageEvent<WorkletReport>) => options.onReport?.(event.data);
  // Ports cannot travel in processorOptions (cloned, not transferred): first message instead.
  control({ type: 'ports', vad: vadPort, asr: asr.port2 }, vadPort ? [vadPort, asr.port2] : [asr.port2]);
  let source = context.createMediaStreamSource(stream);
  source.connect(node);
  // The avatar's audio into the second input, heard by the echo gate only (no output).
  let farSource: MediaStreamAudioSourceNode | null = null;
  const connectFarEnd = (stream: MediaStream | null | undefined): boolean => {
    farSource?.disconnect();
    farSource = null;
    // An input left unconnected is silence to the gate, which then lets every frame through.
    if (!gated || !hasAudio(stream)) return false;
    farSource = context.createMediaStreamSource(stream);
    farSource.connect(node, 0, 1);
    return true;
  };
  connectFarEnd(options.farEnd);

  let stopped = false;
  return {
    setPaused(paused) {
      if (!stopped) control({ type: paused ? 'pause' : 'resume' });
    },
    setVadPort(port) {
      if (stopped) port.close();
      else control({ type: 'vadPort', port }, [port]);
    },
    setFarEndAudible(audible) {
      if (!stopped) control({ type: 'farEnd', audible });
    },
    setFarEndVolume(volume) {
      if (!stopped) control({ type: 'farVolume', volume });
    },
    setFarEnd(stream) {
      return stopped ? false : connectFarEnd(stream);
    },
    replaceStream(next) {
      if (stopped) return;
      source.disconnect();
      source = context.createMediaStreamSource(next);
      source.connect(node);
    },
    stop() {
      if (stopped) return;
      stopped = true;
      source.disconnect();
      farSource?.disconnect();
      control({ type: 'stop' });
      // Chromium keeps an AudioWorkletNode alive (a pending activity) for as long as its
      // AudioContext object lives, closed or not: its port's handler would keep this call's
      // whole pipeline (VAD worker, recognizer, options) reachable for the page's lifetime.
      node.port.onmessage = null;
      node.port.close();
      asr.port1.onmessage = null;
      asr.port1.close();
    },
  };
}
