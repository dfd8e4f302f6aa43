/**
 * The real browser behind VoicePipelineDeps, the microphone the pipeline asks it for, and
 * what a getUserMedia failure means for the visitor.
 */
import { CAPTURE_WORKLET_URL } from '../../workers/capture.client.ts';
import { TARGET_SAMPLE_RATE } from '../../workers/protocol.ts';
import { createVad } from '../../workers/vad.client.ts';
import { createLogger } from '../../../../services/logger.ts';
import type { MicErrorKind, VoicePipelineDeps } from './types.ts';

const log = createLogger('voice');

export const browserVoiceDeps: VoicePipelineDeps = {
  getUserMedia: (constraints) => {
    if (!navigator.mediaDevices?.getUserMedia) {
      // A page that is not a secure context may not ask for the permission at all; a browser
      // without capture has no microphone to ask for.
      if (globalThis.isSecureContext === false) {
        return Promise.reject(new DOMException('the microphone can be asked for only on a secure (https) page', 'SecurityError'));
      }
      return Promise.reject(new DOMException('navigator.mediaDevices is not available', 'NotFoundError'));
    }
    return navigator.mediaDevices.getUserMedia(constraints);
  },
  createAudioContext: () => new AudioContext({ latencyHint: 'interactive' }),
  createWorkletNode: (context, name, options) => new AudioWorkletNode(context, name, options),
  createVad,
  workletUrl: CAPTURE_WORKLET_URL,
  setAudioSession: (type) => {
    const session = (navigator as Navigator & { audioSession?: { type: string } }).audioSession;
    if (!session) return;
    try {
      session.type = type;
    } catch (error) {
      log.warn('audio session type not set', { type, error: String(error) });
    }
  },
};

/** docs/requirements.md R110: 16 kHz, noise suppression, echo cancellation, auto gain. */
export const MIC_CONSTRAINTS: MediaStreamConstraints = {
  audio: {
    channelCount: 1,
    sampleRate: { ideal: TARGET_SAMPLE_RATE },
    noiseSuppression: true,
    echoCancellation: true,
    autoGainControl: true,
  },
};

/**
 * getUserMedia errors that are neither a refusal nor a missing or busy microphone: the
 * permission could not be obtained at all (a page that may not ask, a permissions policy,
 * a document that is not active, a browser that cannot ask).
 */
const PERMISSION_UNOBTAINABLE: ReadonlySet<unknown> = new Set(['SecurityError', 'InvalidStateError', 'TypeError']);

/** Why getUserMedia failed. */
export function micErrorKind(err: unknown): MicErrorKind {
  const name = (err as { name?: unknown } | null)?.name;
  if (name === 'NotAllowedError') return 'denied';
  if (name === 'NotFoundError') return 'unavailable';
  if (PERMISSION_UNOBTAINABLE.has(name)) return 'permission';
  return 'failed';
}
