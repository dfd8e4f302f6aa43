/**
 * One signaling connection: PROTOCOL.md, server side. offer_2 binds it to a
 * room; replies are played through the room's media pipeline; a break or a
 * newer message cuts the reply in progress short.
 */
import type { RawData, WebSocket } from 'ws';
import { recordEvent } from '../events.ts';
import { hasFault } from '../faults.ts';
import type { Logger } from '../log.ts';
import type { Origin } from '../http/origin.ts';
import { STORE_TOUR } from '../replies/knowledge.data.ts';
import { findEntry, greetingEntry, kbLang, type KbLang } from '../replies/knowledge.ts';
import { playReply, type ServerFrame } from '../replies/player.ts';
import { entryReply, type ReplyPart } from '../replies/reply.ts';
import type { Room, RoomClient, RoomRegistry } from '../rooms.ts';
import { createFrameWriter, type Dialect } from './dialect.ts';
import { parseClientFrame, type ClientFrame } from './frames.ts';

/** Close codes (PROTOCOL.md): 1012 = dropped, reconnect; 4003 = this room refuses reconnects. */
export const CLOSE_DROPPED = 1012;
export const CLOSE_REFUSED = 4003;
/**
 * How long a voice turn's words rest before the server ends its recognition with
 * asr_end (PROTOCOL.md): the browser recognizes, so all the server sees of the visitor
 * stopping is that no new wording comes. The client sends its recognizer's final wording
 * at once, so a turn costs this much after it.
 */
export const ASR_END_QUIET_MS = 300;
/** Voice turns a connection remembers: a client that never ends its turns must not grow it without bound. */
const TURNS_KEPT = 100;

export interface SessionDeps {
  rooms: RoomRegistry;
  origin: Origin;
  log: Logger;
  /** The client's address: a socket that proves the room's device_id makes it one of the owner's. */
  address?: string;
  /** Player timing overrides (tests). */
  play?: { graceMs?: number; startTimeoutMs?: number };
  /** Overrides ASR_END_QUIET_MS (tests). */
  asrEndQuietMs?: number;
  /** How frames are worded on the wire (server/signaling/dialect.ts); default `standin`. */
  dialect?: Dialect;
}

/** A voice turn as the server sees it: the newest wording, and whether its recognition has ended. */
interface VoiceTurn {
  text: string;
  timer: ReturnType<typeof setTimeout> | null;
  ended: boolean;
}

// Reply ids are unique for the whole process, so a client that reconnects
// never sees a new reply merged into an old message.
let replySeq = 0;

export class SignalingSession implements RoomClient {
  room: Room | null = null;
  /** When offer_2 bound this session; the newest session of a room gets /__standin/say. */
  boundAt = 0;
  private lang: KbLang = 'en';
  private current: { msgId: string; abort: AbortController } | null = null;
  /** Voice turns that got asr_running, by msg_id, until their end_point. */
  private readonly turns = new Map<string, VoiceTurn>();

  private readonly write: (frame: ServerFrame) => void;

  constructor(
    private readonly ws: WebSocket,
    private readonly deps: SessionDeps,
  ) {
    this.write = createFrameWriter(deps.dialect ?? 'standin', (frame) => {
      if (this.ws.readyState !== this.ws.OPEN) return;
      this.ws.send(JSON.stringify(frame));
      recordEvent('signaling', 'out', frame);
    });
  }

  onMessage(data: RawData, isBinary: boolean): void {
    const raw = Buffer.isBuffer(data) ? data : Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data);
    if (isBinary) {
      recordEvent('signaling', 'in', { binaryBytes: raw.length });
      this.error('binary frames are not accepted: send JSON text frames');
      return;
    }
    const text = raw.toString('utf8');
    const parsed = parseClientFrame(text);
    // A heartbeat is no part of the conversation the event log shows (nor is its pong).
    if (parsed.ok && parsed.frame.type === 'ping') return this.pong();
    recordEvent('signaling', 'in', parsed.json ?? { raw: text.slice(0, 500) });
    if (!parsed.ok) {
      this.error(parsed.error);
      return;
    }
    this.dispatch(parsed.frame);
  }

  onClose(): void {
    this.forgetTurns();
    this.endReply(false);
    this.room?.detach(this);
    this.room = null;
  }

  /** Plays a reply made elsewhere (POST /__standin/say). */
  say(parts: ReplyPart[]): void {
    if (this.room) this.startReply(parts);
  }

  sendQuit(text: string): void {
    this.send({ msg_type: 'quit', text });
  }

  close(code: number, reason: string): void {
    recordEvent('signaling', 'out', { close: code, reason });
    this.forgetTurns();
    this.endReply(false);
    this.ws.close(code, reason);
  }

  private dispatch(frame: ClientFrame): void {
    if (frame.type === 'offer_2') return this.join(frame.roomId, frame.deviceId);
    if (frame.type === 'close_webrtc') return this.close(1000, 'closed by the client');
    const room = this.room;
    if (!room) return this.error(`${frame.type}: send offer_2 first`);
    if (frame.roomId && frame.roomId !== room.id) return this.error(`${frame.type}: room_id ${frame.roomId} is not this connection's room`);

    switch (frame.type) {
      case 'say_hello':
        room.greet();
        this.lang = kbLang(frame.lang);
        if (hasFault('greeting-long')) return this.startReply([{ text: STORE_TOUR }]);
        return this.startReply(entryReply(greetingEntry(), this.lang, this.deps.origin.http));
      case 'message_text':
        if (frame.lang !== undefined) this.lang = kbLang(frame.lang);
        return frame.source === 'nlpmsg' ? this.answer(frame.msgId, frame.text) : this.voiceTurn(frame.msgId, frame.text, frame.endPoint);
      case 'break':
        return this.endReply(true);
      case 'play':
        this.deps.log.info('video playback in the chat log', { roomId: room.id, msgId: frame.msgId, state: frame.state });
        return;
    }
  }

  private join(roomId: string, deviceId: string | null): void {
    const room = this.deps.rooms.get(roomId);
    if (!room) {
      this.error(`offer_2: unknown room ${roomId}`);
      // Without the error extension, the specification's own way to say the room is gone.
      if (this.deps.dialect === 'seed') this.sendQuit('The session has ended.');
      return;
    }
    // Another device that learns a room id gets nothing of it: not the conversation, not a
    // break that would cut the owner's avatar short (server/README.md, *Who owns a room*).
    if (!room.proveOwner(deviceId, this.deps.address ?? 'unknown')) {
      return this.error(`offer_2: room ${roomId} was started by another device (send the deviceId that started it)`);
    }
    if (room.signalingDown && hasFault('signaling-down')) return this.close(CLOSE_REFUSED, 'signaling refused (fault signaling-down)');
    if (this.room && this.room !== room) {
      this.endReply(false);
      this.room.detach(this);
    }
    this.room = room;
    this.boundAt = Date.now();
    room.attach(this);
    this.send({ msg_type: 'command', command: 'asr_ready' });
  }

  private answer(msgId: string, text: string): void {
    // The sentence of a voice turn: its recognition is over whatever the timer says.
    this.endTurn(msgId, false);
    this.send({ msg_type: 'asr', msg_id: msgId, text });
    const match = findEntry(text);
    this.deps.log.info('answering', { roomId: this.room?.id, entry: match.entry.id, how: match.how });
    this.startReply(entryReply(match.entry, this.lang, this.deps.origin.http));
  }

  /**
   * asrcallback: the first wording of a turn gets asr_running; each new wording restarts
   * the quiet timer whose end sends asr_end; end_point (sent after the nlpmsg) closes the turn.
   */
  private voiceTurn(msgId: string, text: string, endPoint: boolean): void {
    if (endPoint) {
      this.endTurn(msgId, false);
      this.turns.delete(msgId);
      return;
    }
    let turn = this.turns.get(msgId);
    if (!turn) {
      if (this.turns.size >= TURNS_KEPT) this.forgetTurns();
      turn = { text, timer: null, ended: false };
      this.turns.set(msgId, turn);
      this.send({ msg_type: 'command', command: 'asr_running', msg_id: msgId });
    }
    if (turn.ended) return;
    turn.text = text;
    if (turn.timer) clearTimeout(turn.timer);
    turn.timer = setTimeout(() => this.endTurn(msgId, true), this.deps.asrEndQuietMs ?? ASR_END_QUIET_MS);
  }

  /** Ends a turn's recognition once; with `notify` the client gets asr_end with its last wording. */
  private endTurn(msgId: string, notify: boolean): void {
    const turn = this.turns.get(msgId);
    if (!turn || turn.ended) return;
    if (turn.timer) clearTimeout(turn.timer);
    turn.timer = null;
    turn.ended = true;
    if (notify) this.send({ msg_type: 'command', command: 'asr_end', msg_id: msgId, text: turn.text });
  }

  private forgetTurns(): void {
    for (const turn of this.turns.values()) if (turn.timer) clearTimeout(turn.timer);
    this.turns.clear();
  }

  private startReply(parts: ReplyPart[]): void {
    const room = this.room;
    if (!room) return;
    this.endReply(true);
    const msgId = `r-${++replySeq}`;
    const abort = new AbortController();
    this.current = { msgId, abort };
    playReply({
      msgId,
      parts,
      lang: this.lang,
      speaker: room.media,
      send: (frame) => this.send(frame),
      signal: abort.signal,
      log: this.deps.log,
      ...this.deps.play,
    })
      .catch((err: unknown) => this.deps.log.error('reply failed', { msgId, error: String(err) }))
      .finally(() => {
        if (this.current?.msgId === msgId) this.current = null;
      });
  }

  /**
   * Stops the avatar at once and ends the reply in progress; with `notify` the
   * client gets its nlp_end with interrupted: true.
   */
  private endReply(notify: boolean): void {
    const current = this.current;
    const room = this.room;
    if (room && !room.closed && (current || notify)) room.media.stopSpeaking();
    if (!current) return;
    this.current = null;
    current.abort.abort();
    if (notify) this.send({ msg_type: 'command', command: 'nlp_end', msg_id: current.msgId, interrupted: true });
  }

  /**
   * PROTOCOL.md, *Heartbeat* (an extension): any ping is answered at once, joined or not; the
   * seed dialect, a back end that has no heartbeat, answers none.
   */
  private pong(): void {
    if (this.deps.dialect === 'seed' || this.ws.readyState !== this.ws.OPEN) return;
    this.ws.send(JSON.stringify({ msg_type: 'pong' }));
  }

  private error(text: string): void {
    this.deps.log.warn('refused a signaling frame', { roomId: this.room?.id, error: text });
    this.send({ msg_type: 'error', text });
  }

  private send(frame: ServerFrame): void {
    this.write(frame);
  }
}
