/**
 * A fake browser for the voice pipeline's tests: every object the pipeline may create
 * (AudioContext, microphone track, worklet node, VAD client) is counted while alive, so a
 * test can check each was released.
 */
import { vi } from 'vitest';
import type { VadEvent, WorkletControl } from '../../workers/protocol.ts';
import type { VadClient } from '../../workers/vad.client.ts';
import type { VoicePipelineDeps } from '../pipeline.ts';

/** Every browser object the pipeline may create, so a test can check each was released. */
export function fakeBrowser(
  options: { micError?: string; vadError?: string; resume?: 'never'; vadReady?: Promise<void>; noAudioWorklet?: boolean } = {},
) {
  const live = { contexts: new Set<object>(), tracks: new Set<object>(), vads: new Set<object>(), nodes: new Set<object>() };
  const made = { contexts: 0, vadCreated: 0, resumes: [] as string[], sources: [] as { connected: unknown[]; disconnected: number }[] };
  const worklets: { control: WorkletControl[]; side: MessagePort; options: AudioWorkletNodeOptions; name: string }[] = [];
  const vads: (VadClient & { paused: boolean[]; thresholds: unknown[]; resets: number; adopted: MessagePort[]; frames: unknown[]; emit(e: VadEvent): void })[] = [];
  let track!: EventTarget & { enabled: boolean; stop(): void };
  /** resumable: whether resume() brings a context back (false: an interruption that lasts). */
  const audio = { resumable: true };
  const contexts: (EventTarget & { state: string; interrupt(state?: string): void })[] = [];

  const makeVad = (ready: Promise<void>) => {
    /** The frame ports handed to this detector, and every frame that reached it on them. */
    const adopted: MessagePort[] = [];
    const frames: unknown[] = [];
    const listeners = new Map<string, Set<(e: VadEvent) => void>>();
    const vad = {
      ready,
      adopted,
      frames,
      adoptPort(port: MessagePort) {
        adopted.push(port);
        port.onmessage = (e: MessageEvent) => frames.push(e.data);
      },
      on(type: string, l: (e: VadEvent) => void) {
        const set = listeners.get(type) ?? new Set();
        listeners.set(type, set.add(l));
        return () => set.delete(l);
      },
      paused: [] as boolean[],
      thresholds: [] as unknown[],
      resets: 0,
      setPaused: async (p: boolean) => void vad.paused.push(p),
      setThresholds: async (t: unknown) => void vad.thresholds.push(t),
      reset: async () => void vad.resets++,
      dispose: async () => {
        live.vads.delete(vad);
        adopted.forEach((port) => port.close());
      },
      emit: (e: VadEvent) => listeners.get(e.type)?.forEach((l) => l(e)),
    };
    live.vads.add(vad);
    vads.push(vad as unknown as (typeof vads)[number]);
    return vad as unknown as VadClient;
  };

  const deps: VoicePipelineDeps = {
    getUserMedia: vi.fn(async () => {
      if (options.micError) throw new DOMException('no', options.micError);
      // Its own constant: calls may overlap (one stopping while the next starts).
      const own: typeof track = Object.assign(new EventTarget(), { enabled: true, stop: () => void live.tracks.delete(own) });
      track = own;
      live.tracks.add(own);
      return { getTracks: () => [own], getAudioTracks: () => [own] } as unknown as MediaStream;
    }),
    createAudioContext: () => {
      made.contexts++;
      const setState = (state: string) => {
        if (context.state === state) return;
        context.state = state;
        context.dispatchEvent(new Event('statechange'));
      };
      const context = Object.assign(new EventTarget(), {
        state: 'suspended',
        sampleRate: 48000,
        audioWorklet: options.noAudioWorklet ? undefined : { addModule: vi.fn(async () => {}) },
        /** Records the state it was asked in (WebKit freezes a context asked while 'interrupted'). */
        resume: () => {
          made.resumes.push(context.state);
          return options.resume === 'never' || !audio.resumable || context.state === 'interrupted'
            ? new Promise<void>(() => {})
            : (setState('running'), Promise.resolve());
        },
        close: async () => void (setState('closed'), live.contexts.delete(context)),
        /** Another app takes the audio (iOS: 'interrupted'). */
        interrupt: (state = 'interrupted') => setState(state),
        createMediaStreamSource: () => {
          const source = {
            connected: [] as unknown[],
            disconnected: 0,
            connect: (n: unknown) => source.connected.push(n),
            disconnect: () => source.disconnected++,
          };
          made.sources.push(source);
          return source;
        },
      });
      contexts.push(context);
      live.contexts.add(context);
      return context as unknown as AudioContext;
    },
    createWorkletNode: (_context, name, nodeOptions) => {
      const channel = new MessageChannel();
      const worklet = { control: [] as WorkletControl[], side: channel.port2, options: nodeOptions, name };
      channel.port2.onmessage = (e: MessageEvent<WorkletControl>) => {
        worklet.control.push(e.data);
        if (e.data.type === 'stop') live.nodes.delete(worklet);
      };
      live.nodes.add(worklet);
      worklets.push(worklet);
      return { port: channel.port1 } as unknown as AudioWorkletNode;
    },
    createVad: vi.fn(() => {
      made.vadCreated++;
      const ready = options.vadError ? Promise.reject(new Error(options.vadError)) : (options.vadReady ?? Promise.resolve());
      ready.catch(() => {});
      return makeVad(ready);
    }),
    workletUrl: '/assets/capture.worklet-abc.js',
  };
  return { deps, live, made, worklets, vads, track: () => track, audio, context: () => contexts.at(-1)! };
}


export const allReleased = (live: ReturnType<typeof fakeBrowser>['live']) =>
  Object.fromEntries(Object.entries(live).map(([k, v]) => [k, v.size]));
