/**
 * A thin adapter over the signaling WebSocket. It only moves text frames; the
 * signaling saga owns the protocol, reconnects and the lifetime of each socket.
 */
import { createReplayEmitter } from './emitter.ts';
import { createLogger } from './logger.ts';

const log = createLogger('socket');

export type SocketEvent =
  | { type: 'open' }
  | { type: 'message'; data: string }
  | { type: 'close'; code: number; reason: string }
  | { type: 'error' };

export interface SignalingSocket {
  subscribe(listener: (event: SocketEvent) => void): () => void;
  isOpen(): boolean;
  /** False (and nothing sent) when the socket is not open. */
  send(text: string): boolean;
  close(): void;
}

export interface SocketService {
  connect(url: string): SignalingSocket;
}

export function createSocketService(
  createWebSocket: (url: string) => WebSocket = (url) => new WebSocket(url),
): SocketService {
  return {
    connect(url) {
      const events = createReplayEmitter<SocketEvent>();
      let ws: WebSocket;
      try {
        ws = createWebSocket(url);
      } catch (error) {
        // A malformed URL throws synchronously; report it as a failed connection.
        log.warn('WebSocket could not be created', { url, error: String(error) });
        events.emit({ type: 'error' });
        events.emit({ type: 'close', code: 1006, reason: 'not created' });
        return { subscribe: events.subscribe, isOpen: () => false, send: () => false, close: () => {} };
      }
      ws.binaryType = 'arraybuffer';
      ws.addEventListener('open', () => events.emit({ type: 'open' }));
      ws.addEventListener('message', (event: MessageEvent) => {
        // The protocol is JSON text only; binary frames are refused (PROTOCOL.md).
        if (typeof event.data !== 'string') {
          log.warn('binary frame dropped');
          return;
        }
        events.emit({ type: 'message', data: event.data });
      });
      ws.addEventListener('error', () => events.emit({ type: 'error' }));
      ws.addEventListener('close', (event: CloseEvent) => events.emit({ type: 'close', code: event.code, reason: event.reason }));
      return {
        subscribe: events.subscribe,
        isOpen: () => ws.readyState === WebSocket.OPEN,
        send(text) {
          if (ws.readyState !== WebSocket.OPEN) return false;
          ws.send(text);
          return true;
        },
        close() {
          events.clear();
          if (ws.readyState === WebSocket.CONNECTING || ws.readyState === WebSocket.OPEN) ws.close(1000, 'client closed');
        },
      };
    },
  };
}
