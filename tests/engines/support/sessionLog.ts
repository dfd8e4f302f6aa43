/**
 * The app's session log from an engine lane's page, saved after a failure beside its
 * screenshot (tests/artifacts/), as the Chromium suite attaches it to its report: what the
 * app saw and did, for a person to read. The recorder writes the log to sessionStorage on a
 * timer and at `pagehide`; a synthetic `pagehide` makes it write its last entries first.
 */
import { writeFileSync } from 'node:fs';
import type { Page } from 'puppeteer-core';
import { artifactPath } from './screenshot.ts';

/** How many of the log's last voice entries a failure prints. */
const VOICE_LINES = 80;

/**
 * The voice's part of a stored session log, one line per entry: the voice detector's and the
 * recognizer's entries and the voice slice's actions, the last VOICE_LINES of them. A lane's
 * output is all a CI run leaves, so a failure prints these; the whole log stays in the file.
 */
export function voiceLines(stored: string): string[] {
  let entries: unknown;
  try {
    entries = (JSON.parse(stored) as { entries?: unknown }).entries;
  } catch {
    return ['(the session log is not JSON)'];
  }
  if (!Array.isArray(entries)) return ['(the session log has no entries)'];
  const lines: string[] = [];
  for (const entry of entries as { t?: number; kind?: string; data?: unknown; action?: { type?: string; payload?: unknown } }[]) {
    const voiceAction = entry.kind === 'action' && typeof entry.action?.type === 'string' && entry.action.type.startsWith('voice/');
    if (entry.kind !== 'vad' && entry.kind !== 'recognizer' && !voiceAction) continue;
    const what = voiceAction ? `${entry.action!.type} ${JSON.stringify(entry.action!.payload ?? null)}` : `${entry.kind} ${JSON.stringify(entry.data ?? null)}`;
    lines.push(`${String(entry.t?.toFixed(0) ?? '?').padStart(7)} ms  ${what.slice(0, 200)}`);
  }
  return lines.slice(-VOICE_LINES);
}

/**
 * Saves the page's session log as NAME.session-log.json in tests/artifacts/; returns the log
 * as stored and the file's path, or null when the page had none (not the app, or gone).
 */
export async function saveSessionLog(page: Page, name: string): Promise<{ log: string; path: string } | null> {
  const log = await page.evaluate(() => {
    window.dispatchEvent(new PageTransitionEvent('pagehide', { persisted: false }));
    return window.sessionStorage.getItem('sessionLog');
  });
  if (!log) return null;
  const path = artifactPath(name, '.session-log.json');
  writeFileSync(path, log);
  return { log, path };
}
