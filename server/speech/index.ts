/**
 * The stand-in speech service: answers the Speech SDK's recognition WebSocket
 * (SpeechConfig.fromHost) on the stand-in's origin and recognises English offline.
 *
 * The SDK sends the subscription key as the `Ocp-Apim-Subscription-Key` query parameter
 * (browsers cannot set WebSocket headers; in Node it also comes as a header). A wrong key
 * gets HTTP 401 before the upgrade, as the real service does; the SDK then reports a
 * canceled result with CancellationErrorCode.ConnectionFailure (in Node the details name
 * the 401; browsers hide handshake statuses and report 1006).
 */
import { randomUUID, timingSafeEqual } from 'node:crypto';
import type http from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, WebSocket, type RawData } from 'ws';
import { recordEvent } from '../events.ts';
import { hasFault } from '../faults.ts';
import { createLogger } from '../log.ts';
import { questions } from '../replies/knowledge.ts';
import { createRecognizer, type Recognizer } from './recognizer.ts';
import { SpeechSession } from './session.ts';
import { modeForPath, settingsFromUrl, type RecognitionMode } from './settings.ts';

const log = createLogger('speech');

export interface SpeechServiceOptions {
  expectedKey: string;
  /** The questions recognised word for word; default: the English knowledge base. */
  grammarQuestions?: string[];
  /** Tests inject a recognizer; default: pocketsphinx. */
  recognizer?: Recognizer;
  maxConnections?: number;
  /** Largest WebSocket message accepted; bigger ones close the socket with 1009. */
  maxPayload?: number;
  maxUtteranceMs?: number;
}

export interface SpeechService {
  /** Claims the upgrade if the URL path is one the Speech SDK uses for recognition; returns false otherwise. */
  handleUpgrade(req: http.IncomingMessage, socket: Duplex, head: Buffer): boolean;
  close(): Promise<void>;
}

const CLOSE_GOING_AWAY = 1001;
const CLOSE_INTERNAL_ERROR = 1011;

function keyMatches(given: string | null, expected: string): boolean {
  if (given === null) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

function refuse(socket: Duplex, status: number, text: string, body: string): void {
  socket.on('error', () => {}); // the client may already be gone; nothing to do about it
  socket.end(`HTTP/1.1 ${status} ${text}\r\nContent-Type: text/plain\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
}

function toBuffer(data: RawData): Buffer {
  if (Buffer.isBuffer(data)) return data;
  return Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data);
}

/** Close reasons are limited to 123 bytes by RFC 6455. */
function closeReason(reason: string): string {
  return Buffer.byteLength(reason) <= 123 ? reason : Buffer.from(reason).subarray(0, 120).toString() + '...';
}

export function createSpeechService(opts: SpeechServiceOptions): SpeechService {
  const recognizer = opts.recognizer ?? createRecognizer({ questions: opts.grammarQuestions ?? questions('en') });
  const maxConnections = opts.maxConnections ?? 64;
  const wss = new WebSocketServer({ noServer: true, maxPayload: opts.maxPayload ?? 1024 * 1024, perMessageDeflate: false });
  const sessions = new Map<WebSocket, SpeechSession>();
  let closed = false;
  let closing: Promise<void> | null = null;
  // Read the dictionary and write the grammars now, not on the first utterance.
  void recognizer.ready();

  function attach(ws: WebSocket, url: URL, mode: RecognitionMode): void {
    const connectionId = url.searchParams.get('X-ConnectionId') ?? randomUUID().replace(/-/g, '');
    const settings = settingsFromUrl(mode, url.searchParams);
    const session = new SpeechSession(connectionId, settings, recognizer, {
      send: (frame) => {
        if (ws.readyState === WebSocket.OPEN) ws.send(frame);
      },
      close: (code, reason) => ws.close(code, closeReason(reason)),
    }, opts.maxUtteranceMs);
    sessions.set(ws, session);
    log.info('speech connection opened', { connectionId, mode, language: settings.language, segmentationSilenceMs: settings.segmentationSilenceMs });
    recordEvent('speech', 'in', { path: 'connection', connectionId, mode, language: settings.language, format: settings.detailed ? 'detailed' : 'simple' });

    ws.on('message', (data, isBinary) => {
      // The speech-down fault: the connection drops as a network would (no close frame).
      if (hasFault('speech-down')) {
        log.warn('speech connection dropped (fault speech-down)', { connectionId });
        recordEvent('speech', 'out', { path: 'connection.dropped', connectionId, reason: 'fault speech-down' });
        session.dispose();
        ws.terminate();
        return;
      }
      try {
        if (isBinary) session.onBinary(toBuffer(data));
        else session.onText(toBuffer(data).toString('utf8'));
      } catch (err) {
        log.error('speech message handling failed', { connectionId, error: err instanceof Error ? err.message : String(err) });
        session.dispose();
        ws.close(CLOSE_INTERNAL_ERROR, 'internal error');
      }
    });
    // ws closes the socket itself on protocol errors (oversized message: 1009, bad UTF-8: 1007).
    ws.on('error', (err) => log.warn('speech socket error', { connectionId, error: err.message }));
    ws.on('close', (code, reason) => {
      session.dispose();
      sessions.delete(ws);
      recordEvent('speech', 'in', { path: 'connection.closed', connectionId, code, reason: reason.toString() });
      log.info('speech connection closed', { connectionId, code });
    });
  }

  return {
    handleUpgrade(req, socket, head) {
      let url: URL;
      try {
        url = new URL(req.url ?? '/', 'http://localhost');
      } catch {
        return false;
      }
      const mode = modeForPath(url.pathname);
      if (!mode) return false;
      const key = url.searchParams.get('Ocp-Apim-Subscription-Key') ?? headerValue(req.headers['ocp-apim-subscription-key']);
      if (closed) {
        refuse(socket, 503, 'Service Unavailable', 'speech service is shutting down');
      } else if (hasFault('speech-down')) {
        recordEvent('speech', 'out', { path: 'connection.refused', status: 503, reason: 'fault speech-down' });
        refuse(socket, 503, 'Service Unavailable', 'speech service unavailable (fault speech-down)');
      } else if (!keyMatches(key, opts.expectedKey)) {
        log.warn('speech connection refused: wrong or missing subscription key', { path: url.pathname, keyGiven: key !== null });
        recordEvent('speech', 'out', { path: 'connection.refused', status: 401, reason: key === null ? 'missing key' : 'wrong key' });
        refuse(socket, 401, 'Unauthorized', 'invalid subscription key');
      } else if (sessions.size >= maxConnections) {
        log.warn('speech connection refused: too many connections', { max: maxConnections });
        refuse(socket, 503, 'Service Unavailable', 'too many speech connections');
      } else {
        wss.handleUpgrade(req, socket, head, (ws) => attach(ws, url, mode));
      }
      return true;
    },

    close() {
      closing ??= shutdown();
      return closing;
    },
  };

  async function shutdown(): Promise<void> {
    closed = true;
    const open = [...sessions.keys()];
    await Promise.all(open.map((ws) => closeSocket(ws)));
    await new Promise<void>((resolve) => wss.close(() => resolve()));
    await recognizer.close();
  }

  /** Going away (1001), and terminated if the peer does not answer the close within a second. */
  function closeSocket(ws: WebSocket): Promise<void> {
    return new Promise((resolve) => {
      sessions.get(ws)?.dispose();
      const force = setTimeout(() => ws.terminate(), 1000);
      ws.once('close', () => {
        clearTimeout(force);
        resolve();
      });
      ws.close(CLOSE_GOING_AWAY, 'speech service shutting down');
    });
  }
}

function headerValue(value: string | string[] | undefined): string | null {
  return (Array.isArray(value) ? value[0] : value) ?? null;
}
