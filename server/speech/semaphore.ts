/**
 * A counting semaphore whose waiters can give up (an aborted connection stops waiting for a
 * slot), and that shares its slots fairly: waiters are queued per key (a speech connection),
 * and a freed slot goes to the keys in turn, so a connection with many utterances waiting
 * delays another connection's by one decode at most per slot, not by its whole queue.
 * Waiters of one key keep their order.
 */
interface Waiter {
  grant: () => void;
  onAbort: () => void;
}

export class Semaphore {
  private free: number;
  /** Waiters by key; the map's order is the turn order (a key just served goes last). */
  private readonly queues = new Map<string, Waiter[]>();

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
  acquire(signal: AbortSignal, key = ''): Promise<() => void> {
    if (signal.aborted) return Promise.reject(signal.reason as Error);
    return new Promise((resolve, reject) => {
      const release = once(() => this.release());
      if (this.free > 0) {
        this.free--;
        resolve(release);
        return;
      }
      const waiter: Waiter = {
        grant: () => {
          signal.removeEventListener('abort', waiter.onAbort);
          resolve(release);
        },
        onAbort: () => {
          const queue = this.queues.get(key);
          if (queue) {
            queue.splice(queue.indexOf(waiter), 1);
            if (queue.length === 0) this.queues.delete(key);
          }
          reject(signal.reason as Error);
        },
      };
      signal.addEventListener('abort', waiter.onAbort, { once: true });
      const queue = this.queues.get(key);
      if (queue) queue.push(waiter);
      else this.queues.set(key, [waiter]);
    });
  }

  private release(): void {
    const next = this.queues.entries().next();
    if (next.done) {
      this.free++;
      return;
    }
    const [key, queue] = next.value;
    const waiter = queue.shift()!;
    // The key goes to the back of the turn order, with whatever it still has waiting.
    this.queues.delete(key);
    if (queue.length > 0) this.queues.set(key, queue);
    waiter.grant();
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
