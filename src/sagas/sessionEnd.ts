/**
 * How a step of the session says "the session is over, and why": it throws a
 * SessionEnd. The session saga catches it, shows its notice (if any), and runs
 * the one ending sequence. Anything else thrown is a bug and ends the session too.
 */
import type { EndReason } from '../features/session/sessionSlice.ts';
import type { NoticeAction, NoticeMessage } from '../features/notices/noticesSlice.ts';

export interface EndNotice {
  kind: 'toast' | 'alert';
  message: NoticeMessage;
  action?: NoticeAction;
}

export class SessionEnd extends Error {
  override readonly name = 'SessionEnd';
  constructor(
    readonly reason: EndReason,
    readonly notice: EndNotice | null = null,
  ) {
    super(`session ended: ${reason}`);
  }
}

export function endWithAlert(reason: EndReason, message: NoticeMessage, action?: NoticeAction): SessionEnd {
  return new SessionEnd(reason, action ? { kind: 'alert', message, action } : { kind: 'alert', message });
}

export function endWithToast(reason: EndReason, message: NoticeMessage): SessionEnd {
  return new SessionEnd(reason, { kind: 'toast', message });
}
