/** A counting semaphore whose waiters can give up (an aborted connection stops waiting for a slot). */
export class Semaphore {
  private free: number;
  private readonly waiters: { grant: () => void; onAbort: () => void }[] = [];

  constructor(size: number) {
    if (!Number.isInteger(size) || size < 1) throw new RangeError(`semaphore size must be a positive integer, got ${size}`);
    this.free = size;
  }

  get full(): boolean {
    return this.free === 0;
  }

  /** A release function if a slot is free now, else null: for work that is worth doing only at once. */
  tryAcquire(): (() => void) | null {
    if (this.free === 0) return null;
    this.free--;
    return once(() => this.release());
  }

  /** Resolves with a release function; rejects with the signal's reason if it aborts first. */
  acquire(signal: AbortSignal): Promise<() => void> {
    if (signal.aborted) return Promise.reject(signal.reason as Error);
    return new Promise((resolve, reject) => {
      const release = once(() => this.release());
      if (this.free > 0) {
        this.free--;
        resolve(release);
        return;
      }
      const waiter = {
        grant: () => {
          signal.removeEventListener('abort', waiter.onAbort);
          resolve(release);
        },
        onAbort: () => {
          this.waiters.splice(this.waiters.indexOf(waiter), 1);
          reject(signal.reason as Error);
        },
      };
      signal.addEventListener('abort', waiter.onAbort, { once: true });
      this.waiters.push(waiter);
    });
  }

  private release(): void {
    const next = this.waiters.shift();
    if (next) next.grant();
    else this.free++;
  }
}

function once(fn: () => void): () => void {
  let done = false;
  return () => {
    if (done) return;
    done = true;
    fn();
  };
}
