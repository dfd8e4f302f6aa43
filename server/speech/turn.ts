/**
 * One turn: the audio that follows a wave header, up to the empty audio message that ends
 * it. Answers as the real service does:
 *
 *   turn.start, then per utterance speech.startDetected, speech.hypothesis (partials),
 *   speech.endDetected, speech.hypothesis (final words), speech.phrase; at the end of the
 *   audio an EndOfDictation phrase (continuous modes) and turn.end.
 *
 * Interactive turns (recognizeOnce) end after their first phrase or initial silence.
 *
 * Decoding runs beside the reply chain, not on it: an utterance's final decode starts the
 * moment its end is detected and the chain only waits for its result when that phrase is
 * next in line. Partial decodes are optional extras: they run only while the speaker is
 * still talking, only on a free decode slot, and are killed when the utterance ends, so
 * a final never waits behind a partial.
 */
import { recordEvent } from '../events.ts';
import { createLogger } from '../log.ts';
import { Endpointer, type EndpointerEvent } from './endpointer.ts';
import { hypothesis, phrase, speechDetected, ticks, turnStart, type RecognitionStatus } from './messages.ts';
import type { DecodeResult, Recognizer } from './recognizer.ts';
import { isEnglish, type ConnectionSettings } from './settings.ts';

const log = createLogger('speech');

const SAMPLES_PER_MS = 16;
const PARTIAL_EVERY_SAMPLES = 16_000; // one partial decode per second of speech at most
/** An utterance past its connection's queue bound: answered NoMatch, never decoded. */
const SKIPPED: DecodeResult = { text: '', source: 'none' };

export interface TurnContext {
  connectionId: string;
  requestId: string;
  settings: ConnectionSettings;
  recognizer: Recognizer;
  maxUtteranceMs: number;
  /** Aborts with the connection: decodes stop and pocketsphinx is killed. */
  signal: AbortSignal;
  /** Runs a task on the connection's reply chain, which keeps replies in order. */
  enqueue(task: () => void | Promise<void>): void;
  /**
   * A place for one more final decode of this connection (its done function), or null when
   * the connection already has as many waiting as it may: the utterance is then NoMatch.
   */
  admitDecode(): (() => void) | null;
  send(requestId: string, path: string, body: object): void;
}

export class Turn {
  private readonly endpointer: Endpointer;
  private frames = 0;
  private bytes = 0;
  private inUtterance = false;
  private utteranceStart = 0;
  private partialAt = 0;
  /** The partial decode in flight, aborted when its utterance ends. */
  private partial: AbortController | null = null;
  private heardSpeech = false;
  /** Interactive turns end after one phrase; later audio of that turn is ignored. */
  private done = false;

  constructor(private readonly ctx: TurnContext) {
    this.endpointer = new Endpointer({ segmentationSilenceMs: ctx.settings.segmentationSilenceMs, maxUtteranceMs: ctx.maxUtteranceMs });
    this.reply('turn.start', turnStart());
  }

  get requestId(): string {
    return this.ctx.requestId;
  }

  push(pcm: Buffer): void {
    this.frames++;
    this.bytes += pcm.length;
    if (this.done) return;
    for (const event of this.endpointer.push(pcm)) {
      this.onEndpoint(event);
      if (this.done) return;
    }
    this.maybePartial();
    this.checkInitialSilence();
  }

  /** The audio ended: an empty audio message (counted as a frame), or a new turn began. */
  end(emptyFrame: boolean): void {
    if (emptyFrame) this.frames++;
    if (!this.done) {
      for (const event of this.endpointer.flush()) this.onEndpoint(event);
      if (this.ctx.settings.mode !== 'interactive') {
        // Its offset acknowledges every sample received, a part frame included: the SDK trims
        // its replay buffer to a phrase's Offset + Duration.
        this.reply('speech.phrase', phrase({ status: 'EndOfDictation', offset: ticks(Math.floor(this.bytes / 2)), duration: 0 }));
      }
      this.reply('turn.end', {});
    }
    // Audio is summarised per turn, never recorded frame by frame.
    recordEvent('speech', 'in', { path: 'audio', requestId: this.requestId, connectionId: this.ctx.connectionId, frames: this.frames, bytes: this.bytes });
  }

  private onEndpoint(event: EndpointerEvent): void {
    if (event.type === 'start') {
      this.inUtterance = true;
      this.utteranceStart = event.startSample;
      this.heardSpeech = true;
      this.partialAt = 0;
      this.reply('speech.startDetected', speechDetected(ticks(event.startSample)));
      return;
    }
    this.inUtterance = false;
    this.partial?.abort(new Error('utterance ended'));
    this.partial = null;
    const offset = ticks(event.startSample);
    const duration = ticks(event.endSample - event.startSample);
    this.reply('speech.endDetected', speechDetected(ticks(event.endSample)));
    const started = Date.now();
    const done = this.ctx.admitDecode();
    const pending = done ? this.recognize(event.audio).finally(done) : Promise.resolve(SKIPPED);
    this.ctx.enqueue(async () => {
      const result = await pending;
      if (!result) return; // the connection went away
      if (result.text) this.ctx.send(this.requestId, 'speech.hypothesis', hypothesis(result.text, offset, duration));
      const status: RecognitionStatus = result.text ? 'Success' : 'NoMatch';
      const confidence = result.source === 'grammar' ? 0.9 : 0.5;
      this.ctx.send(this.requestId, 'speech.phrase', phrase({ status, offset, duration, lexical: result.text, detailed: this.ctx.settings.detailed, confidence }));
      log.info('utterance recognized', { connectionId: this.ctx.connectionId, text: result.text, source: result.source, reason: event.reason, ms: Date.now() - started });
    });
    if (this.ctx.settings.mode === 'interactive') this.finishInteractive();
  }

  private finishInteractive(): void {
    this.done = true;
    this.reply('turn.end', {});
  }

  private checkInitialSilence(): void {
    const limit = this.ctx.settings.initialSilenceMs;
    if (limit === null || this.heardSpeech || this.endpointer.inSpeech) return;
    const heard = this.endpointer.samplesSeen;
    if (heard < limit * SAMPLES_PER_MS) return;
    this.heardSpeech = true; // reported once per turn
    this.reply('speech.phrase', phrase({ status: 'InitialSilenceTimeout', offset: 0, duration: ticks(heard) }));
    if (this.ctx.settings.mode === 'interactive') this.finishInteractive();
  }

  /** Partial words while the speaker talks: prefix grammar, skipped when pocketsphinx is busy. */
  private maybePartial(): void {
    const ep = this.endpointer;
    if (!this.inUtterance || this.partial || this.ctx.recognizer.busy || !isEnglish(this.ctx.settings.language)) return;
    // Counted in voiced audio, so the trailing silence that ends an utterance starts no decode.
    if (ep.voicedSamples - this.partialAt < PARTIAL_EVERY_SAMPLES) return;
    this.partialAt = ep.voicedSamples;
    const abort = new AbortController();
    const onClose = () => abort.abort(this.ctx.signal.reason);
    this.ctx.signal.addEventListener('abort', onClose, { once: true });
    this.partial = abort;
    const offset = ticks(this.utteranceStart);
    const duration = ticks(ep.speechSamples);
    this.ctx.recognizer
      .decode(ep.currentAudio(), 'partial', abort.signal)
      .then(
        (result) => {
          // Still the utterance in progress (its end aborts this), so the words go before its phrase.
          if (this.partial === abort && result.text) this.reply('speech.hypothesis', hypothesis(result.text, offset, duration));
        },
        (err: unknown) => {
          if (!abort.signal.aborted) log.warn('partial decode failed', { connectionId: this.ctx.connectionId, error: err instanceof Error ? err.message : String(err) });
        },
      )
      .finally(() => {
        this.ctx.signal.removeEventListener('abort', onClose);
        if (this.partial === abort) this.partial = null;
      });
  }

  /** A failed decode costs one utterance (NoMatch), not the connection; null when the connection closed. */
  private async recognize(audio: Int16Array): Promise<DecodeResult | null> {
    if (!isEnglish(this.ctx.settings.language)) return { text: '', source: 'none' };
    try {
      return await this.ctx.recognizer.decode(audio, 'final', this.ctx.signal, this.ctx.connectionId);
    } catch (err) {
      if (this.ctx.signal.aborted) return null;
      log.error('decode failed', { connectionId: this.ctx.connectionId, error: err instanceof Error ? err.message : String(err) });
      return { text: '', source: 'none' };
    }
  }

  private reply(path: string, body: object): void {
    this.ctx.enqueue(() => this.ctx.send(this.requestId, path, body));
  }
}
