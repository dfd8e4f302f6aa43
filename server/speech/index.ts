/**
 * The stand-in speech service: answers the Speech SDK's recognition WebSocket
 * (SpeechConfig.fromHost) on the stand-in's origin and recognises English offline.
 *
 * The SDK sends the subscription key as the `Ocp-Apim-Subscription-Key` query parameter
 * (browsers cannot set WebSocket headers; in Node it also comes as a header). A wrong key
 * gets HTTP 401 before the upgrade, as the real service does; the SDK then reports a
 * canceled result with CancellationErrorCode.ConnectionFailure (in Node the details name
 * the 401; browsers hide handshake statuses and report 1006).
 *
 * Limits, so that one client cannot lock others out: connections per client address (the
 * socket's own address; no forwarding header is trusted) are refused with 429 above their
 * cap, and all connections with 503 above the total. A connection over which neither side
 * has sent a message for the idle timeout is closed, as the real service does after 180 s
 * (the Speech WebSocket protocol's "connection duration limitations"); the close is a
 * normal one (1000), after which the SDK opens a new connection when it next has audio.
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
  /** All connections at once (default 128, env STANDIN_SPEECH_MAX_CONNECTIONS); more are refused with 503. */
  maxConnections?: number;
  /** Connections from one client address (default 16, env STANDIN_SPEECH_MAX_PER_ADDRESS); more are refused with 429. */
  maxConnectionsPerAddress?: number;
  /** No message either way for this long closes a connection (default 180 s, env STANDIN_SPEECH_IDLE_MS). */
  idleTimeoutMs?: number;
  /** Largest WebSocket message accepted; bigger ones close the socket with 1009. */
  maxPayload?: number;
  maxUtteranceMs?: number;
}

export interface SpeechService {
  /** Claims the upgrade if the URL path is one the Speech SDK uses for recognition; returns false otherwise. */
  handleUpgrade(req: http.IncomingMessage, socket: Duplex, head: Buffer): boolean;
  close(): Promise<void>;
}

const CLOSE_NORMAL = 1000;
const CLOSE_GOING_AWAY = 1001;

/** The real service's limit for a connection with no messages either way. */
export const DEFAULT_IDLE_TIMEOUT_MS = 180_000;
const DEFAULT_MAX_CONNECTIONS = 128;
const DEFAULT_MAX_PER_ADDRESS = 16;

function intFromEnv(name: string, min: number, max: number): number | undefined {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return undefined;
  const n = /^\d+$/.test(raw) ? Number(raw) : NaN;
  if (n >= min && n <= max) return n;
  log.warn(`ignoring ${name}: not a whole number from ${min} to ${max}`, { value: raw });
  return undefined;
}

/** The client's address as the socket sees it, IPv4-mapped IPv6 written as IPv4. */
function clientAddress(req: http.IncomingMessage): string {
  const address = req.socket.remoteAddress ?? 'unknown';
  return address.startsWith('::ffff:') ? address.slice(7) : address;
}
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
  const maxConnections = opts.maxConnections ?? intFromEnv('STANDIN_SPEECH_MAX_CONNECTIONS', 1, 100_000) ?? DEFAULT_MAX_CONNECTIONS;
  const maxPerAddress = opts.maxConnectionsPerAddress ?? intFromEnv('STANDIN_SPEECH_MAX_PER_ADDRESS', 1, 100_000) ?? DEFAULT_MAX_PER_ADDRESS;
  const idleTimeoutMs = opts.idleTimeoutMs ?? intFromEnv('STANDIN_SPEECH_IDLE_MS', 100, 86_400_000) ?? DEFAULT_IDLE_TIMEOUT_MS;
  /** Open connections by client address. */
  const perAddress = new Map<string, number>();
  const wss = new WebSocketServer({ noServer: true, maxPayload: opts.maxPayload ?? 1024 * 1024, perMessageDeflate: false });
  const sessions = new Map<WebSocket, SpeechSession>();
  let closed = false;
  let closing: Promise<void> | null = null;
  // Read the dictionary and write the grammars now, not on the first utterance.
  void recognizer.ready();

  function attach(ws: WebSocket, url: URL, mode: RecognitionMode, address: string): void {
    const connectionId = url.searchParams.get('X-ConnectionId') ?? randomUUID().replace(/-/g, '');
    const settings = settingsFromUrl(mode, url.searchParams);
    const idle = new IdleTimer(idleTimeoutMs, () => {
      log.info('closing idle speech connection', { connectionId, idleMs: idleTimeoutMs });
      recordEvent('speech', 'out', { path: 'connection.close', connectionId, code: CLOSE_NORMAL, reason: 'idle timeout' });
      void closeSocket(ws, CLOSE_NORMAL, `idle timeout: no message for ${Math.round(idleTimeoutMs / 1000)} s`);
    });
    const session = new SpeechSession(connectionId, settings, recognizer, {
      send: (frame) => {
        if (ws.readyState !== WebSocket.OPEN) return;
        idle.touch();
        ws.send(frame);
      },
      close: (code, reason) => ws.close(code, closeReason(reason)),
    }, opts.maxUtteranceMs);
    sessions.set(ws, session);
    perAddress.set(address, (perAddress.get(address) ?? 0) + 1);
    log.info('speech connection opened', { connectionId, mode, language: settings.language, segmentationSilenceMs: settings.segmentationSilenceMs });
    recordEvent('speech', 'in', { path: 'connection', connectionId, mode, language: settings.language, format: settings.detailed ? 'detailed' : 'simple' });

    ws.on('message', (data, isBinary) => {
      idle.touch();
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
      idle.stop();
      session.dispose();
      sessions.delete(ws);
      const left = (perAddress.get(address) ?? 1) - 1;
      if (left > 0) perAddress.set(address, left);
      else perAddress.delete(address);
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
      const address = clientAddress(req);
      if (closed) {
        refuse(socket, 503, 'Service Unavailable', 'speech service is shutting down');
      } else if (hasFault('speech-down')) {
        recordEvent('speech', 'out', { path: 'connection.refused', status: 503, reason: 'fault speech-down' });
        refuse(socket, 503, 'Service Unavailable', 'speech service unavailable (fault speech-down)');
      } else if (!keyMatches(key, opts.expectedKey)) {
        log.warn('speech connection refused: wrong or missing subscription key', { path: url.pathname, keyGiven: key !== null });
        recordEvent('speech', 'out', { path: 'connection.refused', status: 401, reason: key === null ? 'missing key' : 'wrong key' });
        refuse(socket, 401, 'Unauthorized', 'invalid subscription key');
      } else if ((perAddress.get(address) ?? 0) >= maxPerAddress) {
        // Checked before the total, so one client's sockets are refused before they fill it.
        log.warn('speech connection refused: too many connections from one address', { address, max: maxPerAddress });
        recordEvent('speech', 'out', { path: 'connection.refused', status: 429, reason: 'too many connections from this address' });
        refuse(socket, 429, 'Too Many Requests', `too many speech connections from this address (at most ${maxPerAddress})`);
      } else if (sessions.size >= maxConnections) {
        log.warn('speech connection refused: too many connections', { max: maxConnections });
        recordEvent('speech', 'out', { path: 'connection.refused', status: 503, reason: 'too many connections' });
        refuse(socket, 503, 'Service Unavailable', 'too many speech connections');
      } else {
        // ws calls back synchronously (or not at all, for a socket already gone), so the counts above still hold.
        wss.handleUpgrade(req, socket, head, (ws) => attach(ws, url, mode, address));
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
    await Promise.all(open.map((ws) => closeSocket(ws, CLOSE_GOING_AWAY, 'speech service shutting down')));
    await new Promise<void>((resolve) => wss.close(() => resolve()));
    await recognizer.close();
  }

  /** Closed with `code`, and terminated if the peer does not answer the close within a second. */
  function closeSocket(ws: WebSocket, code: number, reason: string): Promise<void> {
    return new Promise((resolve) => {
      sessions.get(ws)?.dispose();
      const force = setTimeout(() => ws.terminate(), 1000);
      ws.once('close', () => {
        clearTimeout(force);
        resolve();
      });
      ws.close(code, reason);
    });
  }
}

function headerValue(value: string | string[] | undefined): string | null {
  return (Array.isArray(value) ? value[0] : value) ?? null;
}

/** Fires once after `ms` without a touch(); restarted cheaply, since every audio message touches it. */
class IdleTimer {
  private last = Date.now();
  private timer: NodeJS.Timeout;

  constructor(
    private readonly ms: number,
    private readonly onIdle: () => void,
  ) {
    this.timer = setTimeout(() => this.check(), ms);
  }

  touch(): void {
    this.last = Date.now();
  }

  stop(): void {
    clearTimeout(this.timer);
  }

  private check(): void {
    const left = this.last + this.ms - Date.now();
    if (left > 0) this.timer = setTimeout(() => this.check(), left);
    else this.onIdle();
  }
}
