/**
 * The capture AudioWorkletProcessor ('capture-processor'): microphone render quanta in,
 * 16 kHz frames of 1536 samples out, straight to the VAD worker and the recognizer feed.
 *
 * It runs on the real-time audio thread, so it stays small and synchronous: no async
 * init, no onnxruntime, no comlink, no allocation beyond one frame per 96 ms. Vite bundles
 * it with the dsp modules into one file (imported with `?worker&url`). It is type-checked
 * on its own (tsconfig.worklet.json) because the worklet scope has neither DOM nor worker
 * globals beyond MessagePort.
 */
import { Framer } from './dsp/framer.ts';
import { floatToPcm16 } from './dsp/pcm16.ts';
import { StreamingResampler } from './dsp/resampler.ts';
import {
  CAPTURE_PROCESSOR_NAME,
  ECHO_GATE_FAR_FLOOR,
  ECHO_GATE_HANGOVER_FRAMES,
  FRAME_SAMPLES,
  GATED_FRAME_SAMPLES,
  TARGET_SAMPLE_RATE,
  type CaptureProcessorOptions,
  type WorkletControl,
  type WorkletReport,
} from './protocol.ts';

// The AudioWorkletGlobalScope, as much of it as this file uses.
declare global {
  const sampleRate: number;
  function registerProcessor(name: string, ctor: new (options?: { processorOptions?: unknown }) => AudioWorkletProcessor): void;
  abstract class AudioWorkletProcessor {
    readonly port: MessagePort;
    constructor();
    abstract process(inputs: Float32Array[][], outputs: Float32Array[][], parameters: Record<string, Float32Array>): boolean;
  }
}

function readOptions(raw: unknown): CaptureProcessorOptions {
  const o = (typeof raw === 'object' && raw !== null ? raw : {}) as Partial<CaptureProcessorOptions>;
  const valid = (n: unknown): n is number => typeof n === 'number' && Number.isInteger(n) && n > 0;
  return {
    frameSamples: valid(o.frameSamples) ? o.frameSamples : FRAME_SAMPLES,
    targetSampleRate: valid(o.targetSampleRate) ? o.targetSampleRate : TARGET_SAMPLE_RATE,
    ...(typeof o.echoGateDb === 'number' && Number.isFinite(o.echoGateDb) && o.echoGateDb < 0 ? { echoGateDb: o.echoGateDb } : {}),
  };
}

class CaptureProcessor extends AudioWorkletProcessor {
  private vadPort: MessagePort | null = null;
  private asrPort: MessagePort | null = null;
  private paused = false;
  private stopped = false;
  private readonly resampler: StreamingResampler;
  private readonly framer: Framer;
  /** The echo gate as an amplitude ratio (null: no gate). */
  private readonly gateRatio: number | null;
  /** Squared sums since the last frame went out: the microphone, the avatar, and samples. */
  private nearEnergy = 0;
  private farEnergy = 0;
  private energySamples = 0;
  /** Frames sent as silence (reported with every 'gated' report). */
  private gatedFrames = 0;
  /** False while the page holds the avatar's voice: nothing of it reaches the microphone. */
  private farAudible = true;
  /** The avatar's playback volume against its received audio (the warm-up lowers it). */
  private farVolume = 1;
  /** Frames the gate stays open after one that carried more than the echo (the visitor talking). */
  private hangover = 0;
  /** The avatar's level in the two frames before this one, as received and as played: its echo arrives late. */
  private farBefore = [0, 0];
  private playedBefore = [0, 0];

  constructor(options?: { processorOptions?: unknown }) {
    super();
    const { frameSamples, targetSampleRate, echoGateDb } = readOptions(options?.processorOptions);
    this.gateRatio = echoGateDb === undefined ? null : 10 ** (echoGateDb / 20);
    this.resampler = new StreamingResampler(sampleRate, targetSampleRate);
    this.framer = new Framer(frameSamples, (frame) => this.emit(frame));
    this.port.onmessage = (event: MessageEvent<unknown>) => this.onControl(event.data);
  }

  process(inputs: Float32Array[][]): boolean {
    // Returning false lets the browser collect the processor once stopped.
    if (this.stopped) return false;
    // The node is created with channelCount 1 / 'explicit', so the engine has already
    // downmixed; an empty input means the track ended or is not connected yet.
    const channel = inputs[0]?.[0];
    if (!channel || this.paused || !this.asrPort) return true;
    if (this.gateRatio !== null) {
      // Levels need no resampling: the two inputs share the context's rate.
      const far = inputs[1]?.[0];
      for (let i = 0; i < channel.length; i += 1) {
        const near = channel[i]!;
        this.nearEnergy += near * near;
        const echo = far ? far[i]! : 0;
        this.farEnergy += echo * echo;
      }
      this.energySamples += channel.length;
    }
    this.framer.push(this.resampler.process(channel));
    return true;
  }

  /** Whether the frame just completed is the avatar's echo only (the gate closes on it). */
  private echoOnly(): boolean {
    if (this.gateRatio === null || this.energySamples === 0) return false;
    const near = Math.sqrt(this.nearEnergy / this.energySamples);
    const farNow = Math.sqrt(this.farEnergy / this.energySamples);
    // The avatar as the page plays it: its echo is as much quieter as its voice is lowered.
    const playedNow = farNow * this.farVolume;
    this.nearEnergy = 0;
    this.farEnergy = 0;
    this.energySamples = 0;
    // The echo lags the avatar's audio (the loudspeaker, the room, the canceller: 50 to
    // 150 ms): compared with the avatar's loudest of the last three frames (288 ms), the
    // echo of a word that just ended is not taken for the visitor.
    const far = Math.max(farNow, this.farBefore[0]!, this.farBefore[1]!);
    // A loudspeaker's volume acts on what it is playing: raised, the echo of a word received
    // before the change comes out at the new volume, so the avatar's last frames count at it
    // too (a step of the warm-up's ramp, 7.7 dB, is more than the 7 dB between a −25 dB echo
    // and the gate). Lowered, they keep the louder level they were played at.
    const played = Math.max(far * this.farVolume, this.playedBefore[0]!, this.playedBefore[1]!);
    this.farBefore[1] = this.farBefore[0]!;
    this.farBefore[0] = farNow;
    this.playedBefore[1] = this.playedBefore[0]!;
    this.playedBefore[0] = playedNow;
    // Whether the avatar speaks is a question about what it sends, not how loud it is played:
    // lowered for the echo canceller's warm-up, its echo is faint but still clean speech to
    // voice detection, which does not go by loudness.
    if (!this.farAudible || far <= ECHO_GATE_FAR_FLOOR) return false;
    if (near >= played * this.gateRatio) {
      // Louder than the echo: the visitor. The gate stays open a while, so the quieter
      // sounds of their words (consonants, word ends) are not cut out between the loud ones.
      this.hangover = ECHO_GATE_HANGOVER_FRAMES;
      return false;
    }
    if (this.hangover > 0) {
      this.hangover -= 1;
      return false;
    }
    return true;
  }

  private emit(frame: Float32Array): void {
    const gated = this.echoOnly();
    if (gated) {
      // Voice detection and the recognizer hear silence where the microphone carries only
      // the avatar: its echo neither interrupts it nor runs into the visitor's next words.
      frame.fill(0);
      this.gatedFrames += 1;
      if (this.gatedFrames % 50 === 1) this.report({ type: 'gated', frames: this.gatedFrames });
    }
    if (this.asrPort) {
      const pcm = floatToPcm16(frame);
      this.asrPort.postMessage(pcm, [pcm.buffer]);
    }
    // Voice detection is told the frame is silence (protocol.ts, GATED_FRAME_SAMPLES) instead
    // of being sent 1536 zeros to run its model on.
    if (gated) this.vadPort?.postMessage(new Float32Array(GATED_FRAME_SAMPLES));
    // After the transfer `frame` is detached: it must be the last use.
    else this.vadPort?.postMessage(frame, [frame.buffer]);
  }

  private onControl(data: unknown): void {
    const message = data as Partial<WorkletControl> | null;
    switch (message?.type) {
      case 'ports': {
        const { vad, asr } = message as Extract<WorkletControl, { type: 'ports' }>;
        if ((vad !== null && !isPort(vad)) || !isPort(asr)) {
          this.report({ type: 'error', message: 'ports message without a recognizer MessagePort (and a VAD one or null)' });
          return;
        }
        this.vadPort = vad;
        this.asrPort = asr;
        this.report({ type: 'started', sampleRate });
        return;
      }
      case 'vadPort': {
        const { port } = message as Extract<WorkletControl, { type: 'vadPort' }>;
        if (!isPort(port)) {
          this.report({ type: 'error', message: 'vadPort message without a MessagePort' });
          return;
        }
        this.vadPort?.close();
        this.vadPort = port;
        return;
      }
      case 'pause':
        this.paused = true;
        // Audio from before the mute must not be glued to audio after it.
        this.framer.reset();
        this.resampler.reset();
        return;
      case 'resume':
        this.paused = false;
        return;
      case 'farEnd':
        this.farAudible = (message as Extract<WorkletControl, { type: 'farEnd' }>).audible !== false;
        return;
      case 'farVolume': {
        const { volume } = message as Extract<WorkletControl, { type: 'farVolume' }>;
        if (typeof volume === 'number' && volume >= 0 && volume <= 1) this.farVolume = volume;
        return;
      }
      case 'stop':
        this.stopped = true;
        this.vadPort?.close();
        this.asrPort?.close();
        this.vadPort = null;
        this.asrPort = null;
        // The node on the main thread may outlive its call (Chromium keeps it while its
        // AudioContext object lives): let go of this processor with it.
        this.port.onmessage = null;
        this.port.close();
        return;
      default:
        this.report({ type: 'error', message: `unknown control message ${String(message?.type)}` });
    }
  }

  private report(report: WorkletReport): void {
    this.port.postMessage(report);
  }
}

registerProcessor(CAPTURE_PROCESSOR_NAME, CaptureProcessor);

/**
 * Not `instanceof MessagePort`: the global may be missing from an AudioWorkletGlobalScope
 * (older WebKit exposes MessagePort to windows and workers only), and the check would throw
 * there, leaving the call without audio and without an error.
 */
function isPort(value: unknown): value is MessagePort {
  const port = value as Partial<MessagePort> | null;
  return typeof port?.postMessage === 'function' && typeof port.close === 'function';
}
