/**
 * A periodic timer that keeps to the monotonic clock instead of accumulating setTimeout lateness:
 * tick k is due at start + k * period. When the event loop was blocked, the callback learns how
 * many ticks are due at once (bounded by `maxCatchUp`; older ones are dropped).
 */
export interface Ticker {
  stop(): void;
}

export function startTicker(
  periodMs: number,
  onTick: (due: number) => void,
  opts: { maxCatchUp?: number; now?: () => number } = {},
): Ticker {
  const now = opts.now ?? (() => performance.now());
  const maxCatchUp = opts.maxCatchUp ?? 1;
  const start = now();
  let done = 0;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;

  const run = (): void => {
    if (stopped) return;
    let due = Math.floor((now() - start) / periodMs) + 1 - done;
    if (due > maxCatchUp) {
      done += due - maxCatchUp;
      due = maxCatchUp;
    }
    if (due > 0) {
      done += due;
      onTick(due);
    }
    if (stopped) return;
    timer = setTimeout(run, Math.max(0, start + done * periodMs - now()));
    // The pipeline's sockets and children keep the process alive; a timer alone should not.
    timer.unref();
  };
  run();
  return {
    stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
    },
  };
}
