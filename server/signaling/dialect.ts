/**
 * How the stand-in's server frames are worded on the wire (server/README.md, *Dialects*).
 *
 * - `standin` (the default): the stand-in's own shape, with its extensions: command words
 *   in `msg_type: "command"` frames, `msg_type: "error"` for a refused frame, `related_qa`
 *   and `nlp_end`'s `interrupted`.
 * - `seed`: only what the specification's field list allows ("msg_type (asr, tts, quit),
 *   text, msg_id, image_url, video_url, web_url, command"): a recognition command
 *   (asr_*) rides on an `asr` frame, a reply command (nlp_*) on a `tts` frame, and
 *   `nlp_running` on the first part of its reply when that part follows at once; refused
 *   frames get no answer, and no extension field is sent (nor a command's own `text`, such
 *   as asr_end's last wording, which on an asr frame would read as the visitor's echo).
 *
 * Every frame goes through one writer, so the session and the reply player stay
 * unaware of the dialect.
 */
export const DIALECTS = ['standin', 'seed'] as const;
export type Dialect = (typeof DIALECTS)[number];

export type OutFrame = Record<string, unknown> & { msg_type: string };

/** Fields the specification does not list, removed in the seed dialect. */
const EXTENSION_FIELDS = ['related_qa', 'interrupted'];
const CONTENT_FIELDS = ['text', 'image_url', 'video_url', 'web_url'];

export function parseDialect(raw: string | undefined): Dialect | null {
  if (raw === undefined || raw === '') return 'standin';
  return (DIALECTS as readonly string[]).includes(raw) ? (raw as Dialect) : null;
}

function seedFrame(frame: OutFrame): OutFrame | null {
  if (frame.msg_type === 'error') return null;
  const out: OutFrame = { ...frame };
  for (const field of EXTENSION_FIELDS) delete out[field];
  if (frame.msg_type === 'command') {
    out.msg_type = String(frame.command).startsWith('asr_') ? 'asr' : 'tts';
    // On an asr or tts frame a text is content (an echo, a reply part): asr_end's last wording stays home.
    delete out.text;
  }
  else if (frame.msg_type === 'tts' && !CONTENT_FIELDS.some((f) => out[f] !== undefined)) return null;
  return out;
}

/**
 * A writer that words each frame for `dialect` and hands it to `send`. In the seed
 * dialect an `nlp_running` is held until the end of the current task: when the first part
 * of its reply is written in the same task (the reply player does so), the two go as one
 * frame, the specification's "command" beside the part's content.
 */
export function createFrameWriter(dialect: Dialect, send: (frame: OutFrame) => void): (frame: OutFrame) => void {
  if (dialect === 'standin') return send;
  let held: OutFrame | null = null;
  const flush = () => {
    if (held) send(held);
    held = null;
  };
  return (frame) => {
    const out = seedFrame(frame);
    if (!out) return;
    if (held && out.msg_type === 'tts' && out.command === undefined && out.msg_id === held.msg_id) {
      send({ ...out, command: held.command });
      held = null;
      return;
    }
    flush();
    if (out.command === 'nlp_running') {
      held = out;
      queueMicrotask(flush);
      return;
    }
    send(out);
  };
}
