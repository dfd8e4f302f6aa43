/**
 * The browser page as the sagas see it: location, languages, page visibility,
 * the leave confirmation, and the platform quirks that change behaviour.
 */
import type { LocationLike } from '../app/routes.ts';
import { randomUUID } from './compat.ts';
import { afterNextPaint, whenIdle } from './afterPaint.ts';

/** docs/requirements.md R48: on iOS or inside a messenger app a hidden page ends the session after 3 s, elsewhere at once. */
export const HIDDEN_GRACE_MS = 3000;

export interface PlatformService {
  location(): LocationLike;
  /** The visitor's preferred languages, best first (navigator.languages). */
  languages(): readonly string[];
  randomUUID(): string;
  /** How long a hidden page may stay hidden before the session ends. */
  hiddenGraceMs(): number;
  isHidden(): boolean;
  onVisibilityChange(listener: (hidden: boolean) => void): () => void;
  /**
   * Signs that the device's network changed: the browser is back online ('online'), or its
   * connection type changed ('connection': navigator.connection, where it exists; Chrome on
   * Android, not Safari). Not its speed estimates, which change all the time.
   */
  onNetworkChange(listener: (hint: 'online' | 'connection') => void): () => void;
  /** Asks for confirmation before the page is left (beforeunload) while on. */
  setLeaveGuard(on: boolean): void;
  /** Resolves after the next frame has painted (services/afterPaint.ts). */
  afterNextPaint(): Promise<void>;
  /** Resolves once the page has loaded and the main thread is idle (services/afterPaint.ts). */
  whenIdle(): Promise<void>;
  /**
   * A Screen Wake Lock (the screen stays on while it is held). Rejects where the API is
   * missing (NotSupportedError) or the browser refuses (NotAllowedError: battery saver,
   * a hidden page, a policy).
   */
  requestScreenWakeLock(): Promise<ScreenWakeLock>;
}

/** What the app uses of a WakeLockSentinel. */
export interface ScreenWakeLock {
  /** True once released, by release() or by the browser (the page was hidden). */
  readonly released: boolean;
  release(): Promise<void>;
}

/** iPadOS 13+ presents itself as a Mac; touch support gives it away. */
export function isIOS(userAgent: string, maxTouchPoints = 0): boolean {
  return /iPhone|iPad|iPod/i.test(userAgent) || (/Macintosh/.test(userAgent) && maxTouchPoints > 1);
}

/**
 * In-app browsers of messengers (WeChat, QQ, Weibo, DingTalk, Alipay, Facebook,
 * Instagram, LINE) briefly hide the page for their own overlays; QQ Browser is a
 * real browser, not QQ's in-app one.
 */
export function isMessengerApp(userAgent: string): boolean {
  // " QQ/8.9.0" is QQ's in-app browser; QQ Browser says "MQQBrowser/" instead.
  return /MicroMessenger|Weibo|DingTalk|AlipayClient|FBAN|FBAV|Instagram|\sLine\/|\sQQ\/\d/i.test(userAgent);
}

export function hiddenGraceFor(userAgent: string, maxTouchPoints = 0): number {
  return isIOS(userAgent, maxTouchPoints) || isMessengerApp(userAgent) ? HIDDEN_GRACE_MS : 0;
}

export function createBrowserPlatform(): PlatformService {
  const onBeforeUnload = (event: BeforeUnloadEvent) => {
    event.preventDefault();
    // Older browsers need returnValue set to show the dialog.
    event.returnValue = '';
  };
  let guarded = false;
  return {
    location: () => window.location,
    languages: () => (navigator.languages?.length ? navigator.languages : [navigator.language].filter(Boolean)),
    randomUUID,
    hiddenGraceMs: () => hiddenGraceFor(navigator.userAgent, navigator.maxTouchPoints),
    isHidden: () => document.visibilityState === 'hidden',
    onVisibilityChange(listener) {
      const handler = () => listener(document.visibilityState === 'hidden');
      document.addEventListener('visibilitychange', handler);
      return () => document.removeEventListener('visibilitychange', handler);
    },
    onNetworkChange(listener) {
      const onOnline = () => listener('online');
      window.addEventListener('online', onOnline);
      // Network Information: missing on Safari and Firefox, which leave 'online' alone to say it.
      const connection = (navigator as Navigator & { connection?: EventTarget & { type?: string } }).connection;
      let type = connection?.type;
      const onConnection = () => {
        if (connection?.type === type) return;
        type = connection?.type;
        listener('connection');
      };
      connection?.addEventListener?.('change', onConnection);
      return () => {
        window.removeEventListener('online', onOnline);
        connection?.removeEventListener?.('change', onConnection);
      };
    },
    requestScreenWakeLock() {
      // Missing on Firefox before 126, iOS before 16.4 and outside a secure context.
      if (!('wakeLock' in navigator) || !navigator.wakeLock) {
        return Promise.reject(new DOMException('Screen Wake Lock is not available', 'NotSupportedError'));
      }
      return navigator.wakeLock.request('screen');
    },
    afterNextPaint,
    whenIdle,
    setLeaveGuard(on) {
      if (on === guarded) return;
      guarded = on;
      if (on) window.addEventListener('beforeunload', onBeforeUnload);
      else window.removeEventListener('beforeunload', onBeforeUnload);
    },
  };
}
