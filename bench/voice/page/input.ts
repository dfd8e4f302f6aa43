/**
 * One microphone stream and one AudioContext shared by every VAD under test, so they hear
 * exactly the same samples. Each VAD gets a "tap" where it would create its own
 * MediaStreamAudioSourceNode; taps stay unconnected until open(), which connects them all
 * to the single source node while the context is suspended. Both capture worklets therefore
 * receive their first render quantum together and cut frames at the same sample, which is
 * what makes frame indexes comparable between the two VADs.
 */
import { MIC_CONSTRAINTS } from '../../../src/features/voice/services/pipeline.ts';

/** What a VAD's code calls on "its" source node. */
export interface SourceTap {
  connect(node: AudioNode): void;
  disconnect(): void;
}

export interface SharedInput {
  readonly context: AudioContext;
  readonly stream: MediaStream;
  /** A tap for one VAD; it carries audio once open() has run. */
  createTap(): SourceTap;
  /** Connects every tap's node at the same render quantum. */
  open(): Promise<void>;
  /** Disconnects every tap (the next VADs start from silence again). */
  closeTaps(): void;
  dispose(): Promise<void>;
}

/** `sampleRate` unset: the device's rate, as the app gets it (44.1 or 48 kHz). */
export async function openSharedInput(sampleRate?: number): Promise<SharedInput> {
  const context = new AudioContext({ latencyHint: 'interactive', ...(sampleRate && { sampleRate }) });
  await context.resume();
  const stream = await navigator.mediaDevices.getUserMedia(MIC_CONSTRAINTS);
  const source = context.createMediaStreamSource(stream);
  const taps = new Set<{ node: AudioNode | null; connected: boolean }>();
  let opened = false;

  const connect = (tap: { node: AudioNode | null; connected: boolean }) => {
    if (!tap.node || tap.connected) return;
    source.connect(tap.node);
    tap.connected = true;
  };

  return {
    context,
    stream,
    createTap() {
      const tap = { node: null as AudioNode | null, connected: false };
      taps.add(tap);
      return {
        connect(node) {
          tap.node = node;
          if (opened) connect(tap);
        },
        disconnect() {
          if (tap.node && tap.connected) source.disconnect(tap.node);
          tap.connected = false;
          taps.delete(tap);
        },
      };
    },
    async open() {
      // Suspended, no quantum is rendered between the connections below.
      await context.suspend();
      opened = true;
      taps.forEach(connect);
      await context.resume();
    },
    closeTaps() {
      opened = false;
      for (const tap of taps) if (tap.node && tap.connected) source.disconnect(tap.node);
      taps.clear();
    },
    async dispose() {
      source.disconnect();
      stream.getTracks().forEach((track) => track.stop());
      await context.close();
    },
  };
}
