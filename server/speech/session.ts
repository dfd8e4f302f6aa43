/**
 * One Speech SDK connection: parses its messages (speech.config, speech.context, audio),
 * opens a Turn at each wave header and closes it at the empty audio message.
 *
 * Every reply echoes the X-RequestId of the turn's audio, which the SDK checks. Replies go
 * out through one promise chain so they keep their order while pocketsphinx runs. Bad input
 * closes the socket with a code the SDK reports as a canceled result carrying the reason.
 */
import { recordEvent } from '../events.ts';
import { createLogger } from '../log.ts';
import { FrameError, makeTextFrame, parseBinaryFrame, parseTextFrame } from './frames.ts';
import type { Recognizer } from './recognizer.ts';
import { applySpeechContext, isEnglish, type ConnectionSettings } from './settings.ts';
import { Turn } from './turn.ts';
import { isRiff, parseWaveHeader, unsupportedFormat, WaveError } from './wav.ts';

const log = createLogger('speech');

/** WebSocket close codes; the SDK turns 1002 and 1007 into a canceled result with the reason. */
export const CLOSE_PROTOCOL_ERROR = 1002;
export const CLOSE_INVALID_DATA = 1007;
/**
 * Audio faster than the pace below. The SDK (ServiceRecognizerBase) does not cancel at once on
 * 1008: it reconnects and replays its unacknowledged audio, at most maxRetryCount times, then
 * reports a canceled result (ConnectionFailure) with the reason.
 */
export const CLOSE_POLICY_VIOLATION = 1008;

/**
 * What one connection may send and queue (issue 53), so that one device cannot starve the
 * recognition of others. The SDK sends its first 5 s of a turn's audio at once
 * (SPEECH-TransmitLengthBeforThrottleMs) and the rest, a replay after a reconnect included,
 * at twice real time; a microphone gives it real time. Audio past the burst at more than
 * three times real time closes the connection; an utterance past the queue is NoMatch.
 */
export const AUDIO_PACE = {
  /** 16 kHz mono 16-bit, the only format taken (wav.ts). */
  bytesPerSecond: 32_000,
  multiple: 3,
  burstSeconds: 20,
  /** Final decodes of one connection waiting or running at once. */
  maxPendingDecodes: 4,
};

export interface SessionIo {
  send(frame: string): void;
  close(code: number, reason: string): void;
}

export class SpeechSession {
  private settings: ConnectionSettings;
  private configured = false;
  private turn: Turn | null = null;
  private chain: Promise<void> = Promise.resolve();
  private warnedLanguage = false;
  private readonly aborter = new AbortController();
  /** Audio bytes the connection may still send at once (a token bucket refilled at the pace). */
  private audioAllowance = AUDIO_PACE.bytesPerSecond * AUDIO_PACE.burstSeconds;
  private allowanceAt = performance.now();
  private pendingDecodes = 0;
  private skippedDecodes = 0;

  constructor(
    readonly connectionId: string,
    settings: ConnectionSettings,
    private readonly recognizer: Recognizer,
    private readonly io: SessionIo,
    private readonly maxUtteranceMs = 20_000,
  ) {
    this.settings = settings;
  }

  /** Socket gone: stop decoding (kills pocketsphinx) and drop whatever was still queued. */
  dispose(): void {
    this.aborter.abort(new Error('connection closed'));
  }

  onText(text: string): void {
    if (this.aborter.signal.aborted) return;
    const frame = this.parse(() => parseTextFrame(text));
    if (!frame) return;
    let body: unknown;
    try {
      body = frame.body ? JSON.parse(frame.body) : null;
    } catch {
      return this.fail(CLOSE_INVALID_DATA, `${frame.path} body is not JSON`);
    }
    recordEvent('speech', 'in', { path: frame.path, requestId: frame.requestId, connectionId: this.connectionId, body });
    switch (frame.path.toLowerCase()) {
      case 'speech.config':
        this.configured = true;
        return;
      case 'speech.context':
        this.settings = applySpeechContext(this.settings, body);
        return;
      case 'telemetry':
        return;
      default:
        log.warn('ignoring unknown text message', { path: frame.path, connectionId: this.connectionId });
    }
  }

  onBinary(data: Buffer): void {
    if (this.aborter.signal.aborted) return;
    const frame = this.parse(() => parseBinaryFrame(data));
    if (!frame) return;
    if (frame.path.toLowerCase() !== 'audio') {
      log.warn('ignoring unknown binary message', { path: frame.path, connectionId: this.connectionId });
      return;
    }
    if (!this.configured) return this.fail(CLOSE_PROTOCOL_ERROR, 'audio before speech.config');
    if (!this.takeAllowance(frame.payload.length)) {
      return this.fail(CLOSE_POLICY_VIOLATION, `audio faster than ${AUDIO_PACE.multiple}x real time after a ${AUDIO_PACE.burstSeconds} s burst`);
    }
    let payload = frame.payload;
    // Only the first message of a turn carries the wave header (the SDK's sendWaveHeader).
    // Later messages are samples, even when they begin with "RIFF": the SDK's samples push
    // whole WAV files, header included, and the real service hears those bytes as audio.
    // Taking them for a new turn's header ended the turn mid-stream, and the SDK answered
    // that turn.end by replaying its unacknowledged audio under a new request id.
    const opensTurn = payload.length > 0 && (!this.turn || this.turn.requestId !== frame.requestId);
    if (opensTurn) {
      if (isRiff(payload)) {
        try {
          const wave = parseWaveHeader(payload);
          const why = unsupportedFormat(wave.format);
          if (why) return this.fail(CLOSE_INVALID_DATA, `unsupported audio: ${why}`);
          payload = wave.data;
        } catch (err) {
          if (err instanceof WaveError) return this.fail(CLOSE_INVALID_DATA, err.message);
          throw err;
        }
      } else {
        // The SDK always leads with a header; raw PCM without one is taken as 16 kHz mono 16-bit.
        log.warn('audio without a wave header: assuming 16 kHz mono 16-bit', { connectionId: this.connectionId });
      }
      // A new request while a turn is still open: the SDK has left that turn, so it is finished first.
      this.turn?.end(false);
      this.turn = this.startTurn(frame.requestId);
    }
    if (!this.turn) return; // the end of a turn already ended
    if (frame.payload.length === 0) {
      this.turn.end(true);
      this.turn = null;
    } else {
      this.turn.push(payload); // may be empty: a header alone still counts as a frame
    }
  }

  private takeAllowance(bytes: number): boolean {
    const now = performance.now();
    const { bytesPerSecond, multiple, burstSeconds } = AUDIO_PACE;
    this.audioAllowance = Math.min(bytesPerSecond * burstSeconds, this.audioAllowance + ((now - this.allowanceAt) / 1000) * bytesPerSecond * multiple);
    this.allowanceAt = now;
    if (bytes > this.audioAllowance) return false;
    this.audioAllowance -= bytes;
    return true;
  }

  /** A place in this connection's decode queue, or null (recorded) when it is full. */
  private admitDecode(): (() => void) | null {
    if (this.pendingDecodes >= AUDIO_PACE.maxPendingDecodes) {
      // Recorded once per run of refusals, not per utterance: a flood would fill the log.
      if (this.skippedDecodes++ === 0) {
        log.warn('speech connection has too many utterances waiting: more are NoMatch', { connectionId: this.connectionId, max: AUDIO_PACE.maxPendingDecodes });
        recordEvent('speech', 'out', { path: 'decode.skipped', connectionId: this.connectionId, max: AUDIO_PACE.maxPendingDecodes });
      }
      return null;
    }
    this.pendingDecodes++;
    let done = false;
    return () => {
      if (done) return;
      done = true;
      this.pendingDecodes--;
      if (this.pendingDecodes === 0 && this.skippedDecodes > 0) {
        recordEvent('speech', 'out', { path: 'decode.skipped', connectionId: this.connectionId, skipped: this.skippedDecodes });
        this.skippedDecodes = 0;
      }
    };
  }

  private startTurn(requestId: string): Turn {
    if (!isEnglish(this.settings.language) && !this.warnedLanguage) {
      this.warnedLanguage = true;
      log.warn('only English is recognized locally: every utterance will be NoMatch', { language: this.settings.language, connectionId: this.connectionId });
    }
    return new Turn({
      connectionId: this.connectionId,
      requestId,
      settings: this.settings,
      recognizer: this.recognizer,
      maxUtteranceMs: this.maxUtteranceMs,
      signal: this.aborter.signal,
      enqueue: (task) => this.enqueue(task),
      admitDecode: () => this.admitDecode(),
      send: (rid, path, body) => this.send(rid, path, body),
    });
  }

  private parse<T>(fn: () => T): T | null {
    try {
      return fn();
    } catch (err) {
      if (!(err instanceof FrameError)) throw err;
      this.fail(CLOSE_INVALID_DATA, `malformed message: ${err.message}`);
      return null;
    }
  }

  private fail(code: number, reason: string): void {
    log.warn('closing speech connection', { connectionId: this.connectionId, code, reason });
    recordEvent('speech', 'out', { path: 'connection.close', connectionId: this.connectionId, code, reason });
    this.dispose();
    this.io.close(code, reason);
  }

  private enqueue(task: () => void | Promise<void>): void {
    this.chain = this.chain.then(async () => {
      if (this.aborter.signal.aborted) return;
      try {
        await task();
      } catch (err) {
        if (this.aborter.signal.aborted) return;
        log.error('speech task failed', { connectionId: this.connectionId, error: err instanceof Error ? err.message : String(err) });
      }
    });
  }

  private send(requestId: string, path: string, body: object): void {
    if (this.aborter.signal.aborted) return;
    recordEvent('speech', 'out', { path, requestId, connectionId: this.connectionId, body });
    this.io.send(makeTextFrame(path, requestId, JSON.stringify(body)));
  }
}
