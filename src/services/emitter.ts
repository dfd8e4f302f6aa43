/**
 * A listener set that keeps what happens before anyone listens. Adapters start
 * their I/O before a saga's eventChannel subscribes; queued events are handed to
 * the first subscriber so none is lost in between. The queue is bounded.
 */
export interface ReplayEmitter<T> {
  emit(event: T): void;
  subscribe(listener: (event: T) => void): () => void;
  clear(): void;
}

export function createReplayEmitter<T>(maxQueued = 64): ReplayEmitter<T> {
  const listeners = new Set<(event: T) => void>();
  const queued: T[] = [];
  return {
    emit(event) {
      if (listeners.size === 0) {
        if (queued.length < maxQueued) queued.push(event);
        return;
      }
      for (const listener of [...listeners]) listener(event);
    },
    subscribe(listener) {
      listeners.add(listener);
      for (const event of queued.splice(0)) listener(event);
      return () => {
        listeners.delete(listener);
      };
    },
    clear() {
      listeners.clear();
      queued.length = 0;
    },
  };
}
