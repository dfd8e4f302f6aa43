/**
 * The avatar's live MediaStream, outside Redux (streams are not serializable).
 * The media saga sets it (through saga context); the video element reads it with
 * useSyncExternalStore(remoteMedia.subscribe, remoteMedia.get).
 */
export interface RemoteMediaHolder {
  get(): MediaStream | null;
  set(stream: MediaStream | null): void;
  subscribe(listener: () => void): () => void;
}

export function createRemoteMediaHolder(): RemoteMediaHolder {
  let current: MediaStream | null = null;
  const listeners = new Set<() => void>();
  return {
    get: () => current,
    set(stream) {
      if (stream === current) return;
      current = stream;
      for (const listener of [...listeners]) listener();
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
      };
    },
  };
}

/** The app's one holder; createLiveServices() hands it to the sagas, the UI imports it. */
export const remoteMedia: RemoteMediaHolder = createRemoteMediaHolder();
