import { useEffect, useLayoutEffect, type ReactNode } from 'react';
import { useIntl } from 'react-intl';
import { accountRetryRequested, selectAccountInfo, selectAccountStatus } from '../features/account/accountSlice.ts';
import { accountMessages } from '../features/account/messages.ts';
import { useAppDispatch, useAppSelector } from './hooks.ts';
import { dismissShell } from './shell.ts';
import './AccessGate.css';

/** Elements that may be dragged or moved with a finger: marked ones and form fields. */
const DRAGGABLE = '[draggable="true"], [data-draggable], input, textarea';

function scrollsOnItsOwn(el: Element): boolean {
  if (!(el instanceof HTMLElement)) return false;
  const style = getComputedStyle(el);
  const scrollY = (style.overflowY === 'auto' || style.overflowY === 'scroll') && el.scrollHeight > el.clientHeight;
  const scrollX = (style.overflowX === 'auto' || style.overflowX === 'scroll') && el.scrollWidth > el.clientWidth;
  return scrollY || scrollX;
}

/**
 * Whether a finger moving from `target` may move something: an element marked
 * draggable, or a container that scrolls (the chat log). Everything else would
 * only drag or bounce the page itself, which the spec blocks.
 */
export function allowsTouchMove(target: EventTarget | null): boolean {
  for (let el = target instanceof Element ? target : null; el; el = el.parentElement) {
    if (el.matches(DRAGGABLE) || scrollsOnItsOwn(el)) return true;
  }
  return false;
}

/** Page-level guards of the spec's access gate: no context menu, no dragging of the page (zoom stays). */
export function useAccessGuards(): void {
  useEffect(() => {
    // Decided once per gesture at touchstart: cheaper than walking the tree on every touchmove.
    let allowed = false;
    const onContextMenu = (event: Event) => event.preventDefault();
    const onTouchStart = (event: TouchEvent) => {
      allowed = allowsTouchMove(event.target);
    };
    const onTouchMove = (event: TouchEvent) => {
      // One finger drags the page, which the spec blocks; two are a pinch, which visitors
      // with low vision need to zoom (WCAG 1.4.4), so the page lets it through.
      if (!allowed && (event.touches?.length ?? 1) < 2) event.preventDefault();
    };
    document.addEventListener('contextmenu', onContextMenu);
    document.addEventListener('touchstart', onTouchStart, { passive: true });
    document.addEventListener('touchmove', onTouchMove, { passive: false });
    return () => {
      document.removeEventListener('contextmenu', onContextMenu);
      document.removeEventListener('touchstart', onTouchStart);
      document.removeEventListener('touchmove', onTouchMove);
    };
  }, []);
}

/** The user service could not be reached (after the client's retries): say so, and offer Retry. */
function Unreachable() {
  const intl = useIntl();
  const dispatch = useAppDispatch();
  return (
    <div className="splash">
      <div className="splash__card" role="alert">
        <p className="splash__message">{intl.formatMessage(accountMessages.unreachable)}</p>
        <button type="button" className="btn btn--primary" onClick={() => dispatch(accountRetryRequested())}>
          {intl.formatMessage(accountMessages.retry)}
        </button>
      </div>
    </div>
  );
}

/** The longest the shell stays over a valid account's screen waiting for that screen's photo. */
export const SHELL_PHOTO_WAIT_MS = 3000;

/**
 * Renders the app only for a valid account. An invalid account (or a missing
 * id) renders no content at all; the invalid-user toast, put by the boot saga,
 * is rendered outside the gate. While the account loads, a quiet splash; when
 * the user service cannot be reached, a network message with Retry.
 */
export function AccessGate({ children }: { children: ReactNode }) {
  useAccessGuards();
  const status = useAppSelector(selectAccountStatus);
  const photoUrl = useAppSelector(selectAccountInfo)?.photoUrl;
  // The static shell (index.html) stands for the pre-session screen while the account loads;
  // once React shows what the account's answer calls for, it goes, before that frame paints.
  // With a photo, the pre-session screen takes it away when its own copy can paint
  // (PreSession): the shell's copy, asked for earlier, stays the page's largest paint instead
  // of React's copy painting first, later and behind the app's chunk. SHELL_PHOTO_WAIT_MS
  // bounds that wait for any screen that never shows the photo.
  const settled = status !== 'idle' && status !== 'loading';
  const waitForPhoto = status === 'valid' && Boolean(photoUrl);
  useLayoutEffect(() => {
    if (!settled) return;
    if (!waitForPhoto) {
      dismissShell();
      return;
    }
    const timer = setTimeout(dismissShell, SHELL_PHOTO_WAIT_MS);
    return () => clearTimeout(timer);
  }, [settled, waitForPhoto]);
  if (status === 'valid') return children;
  if (status === 'invalid' || status === 'missingId') return null;
  if (status === 'unreachable') return <Unreachable />;
  return (
    <div className="splash" aria-busy="true">
      <span className="splash__ring" aria-hidden="true" />
    </div>
  );
}
