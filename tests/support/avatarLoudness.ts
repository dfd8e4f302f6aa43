/**
 * What the visitor hears of the avatar (test and benchmark harness only, never shipped): a
 * page script that notes, on the Date.now() clock, the avatar's `<audio>` loudness as the
 * page plays it (0 while muted or paused, its volume otherwise) whenever it changes, and
 * every command frame the signaling socket receives and every break it sends; and the Node side that reads from them
 * how long a reply played under half volume. tests/e2e/voice.spec.ts and
 * bench/first-words.mjs use both.
 */

/** A change of the avatar's loudness (0 to 1), at `t`. */
export interface LoudnessMark {
  t: number;
  loudness: number;
}

/** A command frame the page received (nlp_ready, nlp_running, nlp_end, ...), at `t`. */
export interface CommandMark {
  t: number;
  command: string;
  msgId: string | null;
  /** On nlp_end: the reply was cut short by a break. */
  interrupted?: boolean;
}

export interface AvatarTimeline {
  loudness: LoudnessMark[];
  commands: CommandMark[];
  /** When the page sent a break (the visitor interrupting the avatar). */
  breaks: number[];
}

declare global {
  interface Window {
    __avatarTimeline?: AvatarTimeline;
  }
}

/** How often the page looks at the avatar's `<audio>` (ms): far finer than the 300 ms a start may lose. */
export const LOUDNESS_POLL_MS = 10;

/**
 * Runs in the page before its scripts (Playwright's addInitScript). Self-contained: it is
 * serialized into the page, so its poll interval is passed in.
 */
export function recordAvatarTimeline(pollMs: number): void {
  const timeline: AvatarTimeline = { loudness: [], commands: [], breaks: [] };
  Object.defineProperty(window, '__avatarTimeline', { value: timeline, enumerable: false });
  let last: number | null = null;
  setInterval(() => {
    const audio = document.querySelector<HTMLAudioElement>('.avatar-video audio');
    if (!audio) return;
    const loudness = audio.muted || audio.paused ? 0 : audio.volume;
    if (loudness === last) return;
    last = loudness;
    timeline.loudness.push({ t: Date.now(), loudness });
  }, pollMs);
  const Native = window.WebSocket;
  class Noted extends Native {
    constructor(url: string | URL, protocols?: string | string[]) {
      super(url, protocols);
      const send = this.send.bind(this);
      this.send = (data) => {
        if (typeof data === 'string' && data.includes('"break"')) {
          try {
            if ((JSON.parse(data) as { type?: unknown }).type === 'break') timeline.breaks.push(Date.now());
          } catch {
            // not JSON: a speech service frame
          }
        }
        send(data);
      };
      // Before the app's own listener: the time the frame arrived.
      this.addEventListener('message', (event: MessageEvent<unknown>) => {
        if (typeof event.data !== 'string' || !event.data.startsWith('{')) return;
        try {
          const frame = JSON.parse(event.data) as { msg_type?: unknown; command?: unknown; msg_id?: unknown; interrupted?: unknown };
          if (frame.msg_type !== 'command' || typeof frame.command !== 'string') return;
          const msgId = typeof frame.msg_id === 'string' ? frame.msg_id : null;
          timeline.commands.push({ t: Date.now(), command: frame.command, msgId, ...(frame.interrupted === true ? { interrupted: true } : {}) });
        } catch {
          // not JSON: a speech service frame
        }
      });
    }
  }
  window.WebSocket = Noted;
}

/** The loudness at `t`: the last mark at or before it (the first mark's before any). */
function loudnessAt(marks: LoudnessMark[], t: number): number {
  let value = marks[0]?.loudness ?? 0;
  for (const mark of marks) {
    if (mark.t > t) break;
    value = mark.loudness;
  }
  return value;
}

/** How long (ms) the avatar played under half volume between `from` and `to`. */
export function underHalfMs(marks: LoudnessMark[], from: number, to: number): number {
  const edges = [from, ...marks.filter((m) => m.t > from && m.t < to).map((m) => m.t), to];
  let under = 0;
  for (let i = 0; i + 1 < edges.length; i += 1) {
    if (loudnessAt(marks, edges[i]!) < 0.5) under += edges[i + 1]! - edges[i]!;
  }
  return under;
}

/** A reply as the page received it: when it began to speak, and when it ended (null: not yet). */
export interface HeardReply {
  msgId: string;
  speakingAt: number;
  endedAt: number | null;
}

/** The first reply that began (nlp_ready) after `after` and has begun to speak (nlp_running), or null. */
export function replyAfter(commands: CommandMark[], after: number): HeardReply | null {
  const ready = commands.find((c) => c.command === 'nlp_ready' && c.t > after && c.msgId !== null);
  if (!ready) return null;
  const running = commands.find((c) => c.command === 'nlp_running' && c.msgId === ready.msgId);
  if (!running) return null;
  const end = commands.find((c) => c.command === 'nlp_end' && c.msgId === ready.msgId);
  return { msgId: ready.msgId!, speakingAt: running.t, endedAt: end?.t ?? null };
}

/**
 * The first reply that began after `after`, judged once its first `windowMs` have played (or
 * it ended, or, with `untilBreak`, the visitor talked over it): its msg_id and replyLoudness;
 * null until then. `now` is the page's Date.now().
 */
export function judgeReply(timeline: AvatarTimeline, after: number, now: number, windowMs: number, { untilBreak = false } = {}) {
  const reply = replyAfter(timeline.commands, after);
  if (!reply) return null;
  const talkedOver = untilBreak && timeline.breaks.some((t) => t >= reply.speakingAt);
  if (!talkedOver && reply.endedAt === null && now < reply.speakingAt + windowMs) return null;
  return { msgId: reply.msgId, ...replyLoudness(timeline, reply, windowMs, { untilBreak }) };
}

/**
 * How a reply was heard: ms under half volume in its first second, and in its first
 * `windowMs` (or until it ended, if sooner). `untilBreak`: only until the page sent a break,
 * for a test whose visitor talks over replies (the app holds the avatar's voice from their
 * first word, as it should); a benchmark whose visitor is silent by then counts a break,
 * the avatar interrupted by its own echo, as the loss it is.
 */
export function replyLoudness(timeline: AvatarTimeline, reply: HeardReply, windowMs: number, { untilBreak = false } = {}) {
  const interrupted = untilBreak ? timeline.breaks.find((t) => t >= reply.speakingAt) : undefined;
  const to = Math.min(reply.speakingAt + windowMs, reply.endedAt ?? Infinity, interrupted ?? Infinity);
  return {
    firstSecondUnderHalfMs: underHalfMs(timeline.loudness, reply.speakingAt, Math.min(reply.speakingAt + 1000, to)),
    underHalfMs: underHalfMs(timeline.loudness, reply.speakingAt, to),
    heardMs: to - reply.speakingAt,
  };
}
