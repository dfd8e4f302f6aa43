import { describe, expect, it } from 'vitest';
import { createSocketService, type SocketEvent } from './socket.ts';

class FakeWebSocket extends EventTarget {
  readyState: number = WebSocket.CONNECTING;
  binaryType = 'blob';
  sent: string[] = [];
  closedWith: [number, string] | null = null;
  send(text: string) {
    this.sent.push(text);
  }
  close(code: number, reason: string) {
    this.closedWith = [code, reason];
    this.readyState = WebSocket.CLOSING;
  }
  open() {
    this.readyState = WebSocket.OPEN;
    this.dispatchEvent(new Event('open'));
  }
  message(data: unknown) {
    this.dispatchEvent(new MessageEvent('message', { data }));
  }
}

function setup() {
  let ws: FakeWebSocket | null = null;
  const service = createSocketService(() => {
    ws = new FakeWebSocket();
    return ws as unknown as WebSocket;
  });
  const socket = service.connect('ws://h/ws');
  const events: SocketEvent[] = [];
  socket.subscribe((e) => events.push(e));
  return { socket, events, ws: ws as unknown as FakeWebSocket };
}

describe('socket adapter', () => {
  it('passes text frames and refuses binary ones', () => {
    const { socket, events, ws } = setup();
    expect(socket.send('early')).toBe(false);
    ws.open();
    ws.message('{"msg_type":"quit"}');
    ws.message(new ArrayBuffer(2));
    expect(events).toEqual([{ type: 'open' }, { type: 'message', data: '{"msg_type":"quit"}' }]);
    expect(socket.send('hi')).toBe(true);
    expect(ws.sent).toEqual(['hi']);
  });

  it('reports close with its code and closes once on request', () => {
    const { socket, events, ws } = setup();
    ws.open();
    ws.dispatchEvent(new CloseEvent('close', { code: 1006, reason: 'gone' }));
    expect(events.at(-1)).toEqual({ type: 'close', code: 1006, reason: 'gone' });
    socket.close();
    expect(ws.closedWith).toEqual([1000, 'client closed']);
  });

  it('reports a URL the browser refuses as a failed connection', () => {
    const service = createSocketService(() => {
      throw new SyntaxError('bad url');
    });
    const events: SocketEvent[] = [];
    service.connect('nonsense').subscribe((e) => events.push(e));
    expect(events.map((e) => e.type)).toEqual(['error', 'close']);
  });
});
