import { useEffect } from 'react';
import type { LogEntry } from '../../sessionLog/types.ts';

export const SPEEDS = [1, 2, 4, 8] as const;
export type Speed = (typeof SPEEDS)[number];

/**
 * Idle stretches longer than this (in log time) are shortened, so a visitor
 * who sat still for a minute does not make the replay sit still for a minute.
 */
export const MAX_GAP_MS = 3000;

/** Real-time delay before showing entry `index + 1` after entry `index`. */
export function stepDelay(entries: readonly LogEntry[], index: number, speed: Speed): number {
  const current = entries[index];
  const next = entries[index + 1];
  if (!current || !next) return 0;
  return Math.min(Math.max(0, next.t - current.t), MAX_GAP_MS) / speed;
}

/**
 * While playing, advances the index in the log's own rhythm scaled by speed,
 * and stops at the last entry. One timer at a time; cleared on every change.
 */
export function usePlayback(
  entries: readonly LogEntry[],
  index: number,
  playing: boolean,
  speed: Speed,
  onStep: (next: number) => void,
  onEnd: () => void,
): void {
  useEffect(() => {
    if (!playing) return;
    if (index >= entries.length - 1) {
      onEnd();
      return;
    }
    const timer = setTimeout(() => onStep(index + 1), stepDelay(entries, index, speed));
    return () => clearTimeout(timer);
  }, [entries, index, playing, speed, onStep, onEnd]);
}
