/**
 * The ways a start or a session is ended from outside it: the visitor's Cancel or End
 * chat, a saga's trigger (a hidden page...), or the start deadline. The session saga
 * (session.ts) and a start waiting for the live chunk (liveLoader.ts) race the same ones.
 */
import type { PayloadAction } from '@reduxjs/toolkit';
import { delay, take } from 'typed-redux-saga';
import { cancelRequested, endRequested, endTriggered, type EndReason } from '../features/session/sessionSlice.ts';

/** The effects to race; `deadline` resolves when the start has taken too long. */
export function endings<D>(deadline: D) {
  return {
    timeout: deadline,
    cancel: take(cancelRequested.type),
    end: take(endRequested.type),
    triggered: take(endTriggered.match),
  };
}

/** What is left of the start's 15 s (docs/requirements.md R46) `elapsedMs` after the tap. */
export function deadlineAfter(totalMs: number, elapsedMs: number) {
  return delay(Math.max(0, totalMs - elapsedMs));
}

export interface EndingOutcome {
  timeout?: unknown;
  cancel?: unknown;
  end?: unknown;
  triggered?: PayloadAction<EndReason>;
}

/** Why the race ended, or null when none of the endings won it. */
export function endReasonOf(outcome: EndingOutcome): EndReason | null {
  if (outcome.timeout) return 'timeout';
  if (outcome.cancel) return 'cancelled';
  if (outcome.end) return 'user';
  if (outcome.triggered) return outcome.triggered.payload;
  return null;
}
