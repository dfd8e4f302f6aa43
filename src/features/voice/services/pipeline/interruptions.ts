/**
 * Watching the page's audio through a call: another app taking it (iOS 'interrupted'), the
 * browser suspending it, and its return.
 */
import { createLogger } from '../../../../services/logger.ts';
import type { MicErrorKind, VoicePipelineOptions } from './types.ts';

const log = createLogger('voice');

/**
 * A context the browser suspended mid-call (not WebKit's 'interrupted') is asked back at
 * once; only if it is not running again this long after is the call paused, so a blip
 * goes unnoticed.
 */
export const SUSPENDED_GRACE_MS = 1000;

/**
 * The page's audio in the middle of a call. Another app may take it: iOS moves the context
 * to 'interrupted' (a phone call, Siri, an alarm) and pauses the page's media; asking an
 * interrupted context to resume freezes it there (stream-video-js #2249), so it is never
 * asked while interrupted. When the interruption ends WebKit moves it to 'suspended', and
 * only then is it asked back; a browser that suspends it by itself is asked back at once,
 * and again whenever the page shows, gets the focus or is tapped (a gesture iOS may want).
 * The caller hears onAudioLost when the audio is gone (at once when interrupted; after
 * SUSPENDED_GRACE_MS when suspended) and onAudioBack when it runs again. Removed by
 * `cleanup` before the context closes.
 */
export function watchAudioSession(
  context: AudioContext,
  cleanup: (() => void | Promise<void>)[],
  fail: (kind: MicErrorKind, message: string) => void,
  report: Pick<VoicePipelineOptions, 'onAudioLost' | 'onAudioBack'>,
): void {
  let lost = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  // 'interrupted' is WebKit's, not in the DOM typings.
  const state = () => context.state as string;
  const loseAudio = () => {
    clearTimeout(timer);
    timer = undefined;
    if (lost || state() === 'running') return;
    lost = true;
    log.warn(`the call pauses: audio ${state()}`);
    report.onAudioLost?.(state());
  };
  const askBack = () => {
    if (state() === 'suspended') context.resume().catch(() => {});
  };
  const onStateChange = () => {
    const now = state();
    if (now === 'running') {
      clearTimeout(timer);
      timer = undefined;
      if (!lost) return;
      lost = false;
      log.info('the audio is back: the call goes on');
      report.onAudioBack?.();
      return;
    }
    if (now === 'closed') {
      clearTimeout(timer);
      fail('unavailable', 'the audio context was closed');
      return;
    }
    log.warn(`audio context ${now} during the call`);
    if (now === 'suspended') {
      askBack();
      timer ??= setTimeout(loseAudio, SUSPENDED_GRACE_MS);
    } else {
      loseAudio();
    }
  };
  const page = globalThis.document as Document | undefined;
  const onPageBack = () => {
    if (page?.visibilityState !== 'hidden') askBack();
  };
  context.addEventListener('statechange', onStateChange);
  page?.addEventListener('visibilitychange', onPageBack);
  page?.addEventListener('pointerdown', onPageBack, true);
  globalThis.addEventListener?.('focus', onPageBack);
  cleanup.push(() => {
    context.removeEventListener('statechange', onStateChange);
    page?.removeEventListener('visibilitychange', onPageBack);
    page?.removeEventListener('pointerdown', onPageBack, true);
    globalThis.removeEventListener?.('focus', onPageBack);
    clearTimeout(timer);
  });
}
