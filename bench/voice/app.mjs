/**
 * End of speech → message sent, in the real app: the app built for the stand-in, a live
 * session, a hands-free call on the fake microphone. The app's own session log (the
 * Redux actions with performance.now() times, kept in sessionStorage) gives, for each
 * sentence the app sends (signaling/sendRequested, message_text with end_point true),
 * the time since the VAD's last end of speech before it (voice/callMoved: the call's
 * machine saying the visitor is heard, then no longer).
 */
// Functions passed to page.evaluate run in the browser.
/* global window */
import { readFileSync } from 'node:fs';
import { percentile } from './metrics.mjs';

const LIVE_TIMEOUT_MS = 45_000;
/** The recorder writes sessionStorage every 3 s (src/features/sessionLog/recorder.ts). */
const LOG_FLUSH_MS = 3500;

function texts(root) {
  const en = JSON.parse(readFileSync(new URL('lang/en.json', root), 'utf8'));
  const pick = (id) => {
    if (typeof en[id] !== 'string') throw new Error(`lang/en.json has no ${id}`);
    return en[id];
  };
  return { start: pick('session.startChat'), end: pick('session.endChat'), call: pick('voice.startCall'), hangUp: pick('voice.hangUp') };
}

const msgIdOf = (action) => action.payload?.msgId ?? action.payload?.data?.msg_id ?? null;
const isSentenceSend = (action) =>
  action.type === 'signaling/sendRequested' && action.payload?.type === 'message_text' && action.payload?.end_point === true;

/**
 * Each sent sentence's VAD end. A sentence's id (msgId) first shows up in the first
 * action about it (a partial, else the sentence itself), which comes after the VAD
 * started it: its start is the last time the call's machine said the visitor is heard
 * (voice/callMoved, hearing turning true) before that, and its end the first time it
 * said they no longer are after the start.
 */
export function sendLatencies(entries) {
  const actions = entries.filter((e) => e.kind === 'action').sort((a, b) => a.t - b.t);
  const firstMention = new Map();
  for (const { t, action } of actions) {
    const id = msgIdOf(action);
    if (id !== null && !firstMention.has(id)) firstMention.set(id, t);
  }
  // The machine puts callMoved whenever what the status line shows changes: hearing's turns are the speech's starts and ends.
  const starts = [];
  const ends = [];
  let hearing = false;
  for (const { t, action } of actions) {
    if (action.type !== 'voice/callMoved' || action.payload?.hearing === hearing) continue;
    hearing = action.payload.hearing;
    (hearing ? starts : ends).push(t);
  }
  const latencies = [];
  for (const { t, action } of actions) {
    if (!isSentenceSend(action)) continue;
    const mention = firstMention.get(msgIdOf(action)) ?? t;
    const start = starts.filter((s) => s <= mention).at(-1);
    const end = start === undefined ? undefined : ends.find((e) => e >= start);
    if (end !== undefined && end <= t) latencies.push(t - end);
  }
  const round = (v) => (v === null ? null : Math.round(v));
  const voice = actions.filter((e) => e.action.type === 'voice/callMoved' || e.action.type === 'voice/sentenceRecognized' || isSentenceSend(e.action));
  return {
    /** The VAD and sentence actions, for reading a run back (ms since the log started). */
    timeline: voice.map(({ t, action }) => `${Math.round(t)} ${action.type}${msgIdOf(action) ? ` ${msgIdOf(action).slice(0, 8)}` : ''}`),
    vadSegments: starts.length,
    sentences: latencies.length,
    medianMs: round(percentile(latencies, 0.5)),
    maxMs: round(latencies.length ? Math.max(...latencies) : null),
    allMs: latencies.map(round),
  };
}

/**
 * Start chat until live (End chat enabled). On this shared machine a start sometimes
 * misses the app's own 15 s limit and the app goes back to Start chat: try again.
 */
async function goLive(page, t, attempts = 3) {
  const live = page.getByRole('button', { name: t.end, exact: true, disabled: false });
  for (let attempt = 1; ; attempt++) {
    await page.getByRole('button', { name: t.start, exact: true, disabled: false }).click({ timeout: LIVE_TIMEOUT_MS });
    try {
      await live.waitFor({ timeout: LIVE_TIMEOUT_MS });
      return;
    } catch (err) {
      if (attempt >= attempts) throw new Error(`not live after ${attempts} starts: ${err.message.split('\n')[0]}`);
    }
  }
}

/** One call of `seconds` in the app at `rate`; resolves with its latencies. */
export async function measureApp(browser, { origin, rate, seconds, root }) {
  const t = texts(root);
  const context = await browser.newContext({ baseURL: origin });
  const page = await context.newPage();
  try {
    const cdp = await context.newCDPSession(page);
    await cdp.send('Emulation.setCPUThrottlingRate', { rate });
    await page.addInitScript(() => window.localStorage.setItem('lang', 'en'));
    await page.goto('/25d/demo');
    const button = (name) => page.getByRole('button', { name, exact: true });
    await goLive(page, t);
    await button(t.call).click({ timeout: LIVE_TIMEOUT_MS });
    await button(t.hangUp).waitFor({ state: 'visible', timeout: LIVE_TIMEOUT_MS });
    await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
    await button(t.hangUp).click();
    await new Promise((resolve) => setTimeout(resolve, LOG_FLUSH_MS));
    const stored = await page.evaluate(() => window.sessionStorage.getItem('sessionLog'));
    const log = stored ? JSON.parse(stored) : null;
    if (!log || !Array.isArray(log.entries)) throw new Error('the app wrote no session log');
    return sendLatencies(log.entries);
  } finally {
    await context.close();
  }
}
