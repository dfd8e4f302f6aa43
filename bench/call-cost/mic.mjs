/**
 * The test microphone of bench/call-cost.mjs and what it said: one WAV (Chromium's
 * file-backed fake microphone plays it in a loop from the moment the microphone opens)
 * holding the demo's four questions, each in a slot of its own, so that a question is
 * asked every SLOT_S seconds for as long as the call lasts. From the moment the microphone
 * opened, `spokenBetween` lists which questions were said when, and `questionsAnswered`
 * matches them with the questions the page sent and the replies it got.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { wordAccuracy } from '../_echo.mjs';

/** A question every 20 s: the cadence; every reply of the demo ends well within it. */
export const SLOT_S = 20;
/** Where each question starts in its slot. */
const LEAD_S = 1;
const RATE = 16_000;

/** The fixtures spoken, in the order the loop says them (tests/fixtures, made by scripts/make-fixtures.mjs). */
const QUESTIONS = [
  { file: 'q-nearest-store.wav', text: 'where is the nearest store' },
  { file: 'q-opening-hours.wav', text: 'what are your opening hours' },
  { file: 'q-discount.wav', text: 'tell me about the discount' },
  { file: 'q-new-products.wav', text: 'show me the new products' },
];

/** The samples of a 16 kHz 16-bit mono WAV (its data chunk). */
function samplesOf(path) {
  const buffer = readFileSync(path);
  if (buffer.toString('ascii', 0, 4) !== 'RIFF' || buffer.toString('ascii', 8, 12) !== 'WAVE') throw new Error(`${path} is not a WAV file`);
  let at = 12;
  let format = null;
  while (at + 8 <= buffer.length) {
    const id = buffer.toString('ascii', at, at + 4);
    const size = buffer.readUInt32LE(at + 4);
    if (id === 'fmt ') format = { channels: buffer.readUInt16LE(at + 10), rate: buffer.readUInt32LE(at + 12), bits: buffer.readUInt16LE(at + 22) };
    if (id === 'data') {
      if (!format || format.channels !== 1 || format.rate !== RATE || format.bits !== 16) throw new Error(`${path}: expected 16 kHz 16-bit mono`);
      return buffer.subarray(at + 8, at + 8 + size);
    }
    at += 8 + size + (size % 2);
  }
  throw new Error(`${path} has no data chunk`);
}

/** Where speech starts and ends in a slot's samples: the first and last 10 ms above −40 dBFS (s from the slot's start). */
function speechSpan(data) {
  const win = RATE / 100;
  let first = null;
  let last = null;
  for (let start = 0; start + win * 2 <= data.length; start += win * 2) {
    let sum = 0;
    for (let i = 0; i < win; i += 1) sum += (data.readInt16LE(start + 2 * i) / 32768) ** 2;
    if (Math.sqrt(sum / win) > 0.01) {
      first ??= start / 2 / RATE;
      last = (start / 2 + win) / RATE;
    }
  }
  if (first === null) throw new Error('no speech in a question fixture');
  return { onsetS: LEAD_S + first, endS: LEAD_S + last };
}

/** Writes the looped microphone's WAV to `path`; returns its schedule (each question's slot, text, onset and end). */
export function makeMicrophone(fixturesDir, path) {
  const slotBytes = SLOT_S * RATE * 2;
  const body = Buffer.alloc(slotBytes * QUESTIONS.length);
  const schedule = QUESTIONS.map(({ file, text }, slot) => {
    const data = samplesOf(join(fixturesDir, file));
    if (data.length > slotBytes - LEAD_S * RATE * 2) throw new Error(`${file} is longer than its ${SLOT_S} s slot`);
    data.copy(body, slot * slotBytes + LEAD_S * RATE * 2);
    return { slot, text, ...speechSpan(data) };
  });
  const header = Buffer.alloc(44);
  header.write('RIFF', 0, 'ascii');
  header.writeUInt32LE(36 + body.length, 4);
  header.write('WAVEfmt ', 8, 'ascii');
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(1, 22);
  header.writeUInt32LE(RATE, 24);
  header.writeUInt32LE(RATE * 2, 28);
  header.writeUInt16LE(2, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36, 'ascii');
  header.writeUInt32LE(body.length, 40);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, Buffer.concat([header, body]));
  return { path, loopS: SLOT_S * QUESTIONS.length, schedule };
}

/** The questions the microphone said whose speech began in [from, to) (Date.now() ms), the loop starting at `openedAt`. */
export function spokenBetween(mic, openedAt, from, to) {
  const spoken = [];
  for (let loop = 0; openedAt + loop * mic.loopS * 1000 < to; loop += 1) {
    for (const q of mic.schedule) {
      const slotStart = openedAt + (loop * mic.loopS + q.slot * SLOT_S) * 1000;
      const onset = slotStart + q.onsetS * 1000;
      if (onset >= from && onset < to) spoken.push({ text: q.text, onset, end: slotStart + q.endS * 1000 });
    }
  }
  return spoken;
}

/** How long after a question's last word its sentence may be sent to count as heard (recognizer and sentence rule). */
const HEARD_WITHIN_MS = 10_000;
/** The least word accuracy (1 − word error rate) for a sent sentence to count as the question spoken. */
const ACCURACY = 0.75;

/**
 * For each question spoken, the sentence sent for it (the first `nlpmsg` within
 * HEARD_WITHIN_MS of its end that matches it) and whether it was answered: the server
 * echoed it (`asr`), and the reply it started next (`nlp_ready`) ended without being
 * interrupted (`nlp_end`). Returns the counts and each question's fate.
 */
export function questionsAnswered(spoken, { sent, received }) {
  const fates = spoken.map((q) => {
    const candidates = sent.filter((s) => s.t >= q.onset && s.t <= q.end + HEARD_WITHIN_MS);
    const match = candidates.find((s) => wordAccuracy(q.text, s.text) >= ACCURACY) ?? null;
    if (!match) return { ...q, heard: candidates.map((s) => s.text).join(' | ') || null, answered: false, why: candidates.length ? 'misheard' : 'nothing sent' };
    const echo = received.find((r) => r.kind === 'asr' && r.msgId === match.msgId && r.t >= match.t);
    const reply = echo && received.find((r) => r.kind === 'nlp_ready' && r.t >= echo.t);
    const end = reply && received.find((r) => r.kind === 'nlp_end' && r.msgId === reply.msgId);
    const answered = Boolean(end && !end.interrupted);
    const why = answered ? null : !echo ? 'no echo' : !reply ? 'no reply' : !end ? 'reply did not end' : 'reply interrupted';
    return { ...q, heard: match.text, sentAfterEndMs: match.t - q.end, answered, why };
  });
  return { spoken: fates.length, answered: fates.filter((f) => f.answered).length, fates };
}
