/**
 * A visitor who chats for a long time in one page (a kiosk, a tab left open) starts and
 * ends many sessions: each must leave nothing behind. After every session (a call, then
 * End chat) the page's heap is collected and snapshotted through CDP, and what is still
 * reachable is counted by kind: event listeners, workers, peer connections, sockets,
 * media elements, buttons and images. Once the first sessions have warmed the page's
 * caches, none of these counts may grow.
 *
 * Listeners are counted twice: blink's listener objects in the snapshot, and CDP's
 * Performance.getMetrics JSEventListeners after the same collection. The suite's usual
 * counters (support/counters.ts) are not installed here: they hold every peer connection
 * and socket on purpose, and with them the app's listeners.
 *
 * Each snapshot waits for the page's workers to be gone: the session's voice detector is
 * disposed as it ends, within a short grace. Chromium keeps an AudioWorkletNode (a pending
 * activity while its AudioContext object lives, closed or not) with its port and context:
 * shown, not asserted. With the detector gone they read 0 or 1 after each session, idle and
 * beside stress-ng (they read 1, 2, 2, 3, 4 when a detector loading for an ended session
 * still ran). The port's handler is cleared, so nothing of ours hangs on them.
 */
import type { CDPSession, Page } from '@playwright/test';
import { endChat, expectLive, openHome, startButton, text } from './support/app.ts';
import { expect, test } from './support/voiceBrowser.ts';

// No counters (support/counters.ts): they hold every peer connection and socket on purpose,
// which is exactly what this test must not see.

const SESSIONS = 5;
/**
 * Sessions that may still grow the counts: the first loads the voice code and fills caches.
 * The three after them show a leak of one object a session as three.
 */
const WARM_UP = 2;
/** Kinds of heap object (snapshot node names) that must not pile up from session to session. */
const KINDS = [
  'EventListener',
  'V8EventListener',
  'Worker',
  'RTCPeerConnection',
  'WebSocket',
  'HTMLVideoElement',
  'HTMLAudioElement',
  'HTMLButtonElement',
  'HTMLImageElement',
] as const;
/** Also shown, not asserted: what Chromium itself keeps of a finished call (see above). */
const SHOWN = ['MessagePort', 'AudioContext', 'AudioWorkletNode'] as const;

/** How long after End chat the session's workers may take to be gone (a dispose's grace, a loaded machine). */
const WORKERS_GONE_MS = 15_000;

type Counts = Record<string, number>;

interface HeapSnapshot {
  snapshot: { meta: { node_fields: string[]; node_types: [string[]] } };
  nodes: number[];
  strings: string[];
}

/** Collects garbage, snapshots the heap and counts its objects of the named kinds. */
async function reachable(cdp: CDPSession): Promise<Counts> {
  await cdp.send('HeapProfiler.collectGarbage');
  await cdp.send('HeapProfiler.collectGarbage');
  const chunks: string[] = [];
  const onChunk = ({ chunk }: { chunk: string }) => chunks.push(chunk);
  cdp.on('HeapProfiler.addHeapSnapshotChunk', onChunk);
  await cdp.send('HeapProfiler.takeHeapSnapshot', { reportProgress: false });
  cdp.off('HeapProfiler.addHeapSnapshotChunk', onChunk);
  const snap = JSON.parse(chunks.join('')) as HeapSnapshot;
  const fields = snap.snapshot.meta.node_fields.length;
  const types = snap.snapshot.meta.node_types[0];
  const wanted = new Set<string>([...KINDS, ...SHOWN]);
  const counts: Counts = Object.fromEntries([...wanted].map((k) => [k, 0]));
  for (let i = 0; i < snap.nodes.length; i += fields) {
    // Blink's objects are the snapshot's native nodes, named by their interface.
    if (types[snap.nodes[i]!] !== 'native') continue;
    const name = snap.strings[snap.nodes[i + 1]!]!;
    if (wanted.has(name)) counts[name]! += 1;
  }
  counts.JSEventListeners = await liveListeners(cdp);
  return counts;
}

/** At most this many readings of the JSEventListeners counter, each after a collection. */
const LISTENER_READINGS = 6;

/**
 * Chromium's JSEventListeners counter drops only when a listener is finalized, which its
 * heap sweeps lazily after a collection: on a loaded machine it read 179 to 183 after
 * sessions whose reachable listeners the snapshot counted the same (191 each time). It is
 * read again after another collection until two readings agree, and the least counts: a
 * listener that leaks is never finalized, so it is in every reading.
 */
async function liveListeners(cdp: CDPSession): Promise<number> {
  let least = Infinity;
  let last = NaN;
  for (let i = 0; i < LISTENER_READINGS; i += 1) {
    if (i > 0) {
      await new Promise((done) => setTimeout(done, 250));
      await cdp.send('HeapProfiler.collectGarbage');
    }
    const { metrics } = await cdp.send('Performance.getMetrics');
    const reading = metrics.find((m) => m.name === 'JSEventListeners')?.value ?? NaN;
    least = Math.min(least, reading);
    if (reading === last) break;
    last = reading;
  }
  return least;
}

const button = (page: Page, id: string) => page.getByRole('button', { name: text('en', id), exact: true });

test('five sessions in one page, each with a call: nothing a session made stays reachable', async ({ page }) => {
  test.setTimeout(300_000);
  await openHome(page);
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Performance.enable');
  await cdp.send('HeapProfiler.enable');
  const after: Counts[] = [];
  for (let i = 0; i < SESSIONS; i += 1) {
    await startButton(page).click();
    await expectLive(page);
    await button(page, 'voice.startCall').click();
    await expect(button(page, 'voice.hangUp')).toBeVisible({ timeout: 45_000 });
    await button(page, 'voice.hangUp').click();
    await expect(button(page, 'voice.startCall')).toBeVisible();
    await endChat(page);
    await expect(startButton(page)).toBeEnabled({ timeout: 15_000 });
    // The session's voice detector is disposed as it ends (its worker gets a short grace to
    // finish, then is terminated); a worker left after that is a leak, not a snapshot's luck.
    await expect.poll(() => page.workers().length, { message: 'workers alive after End chat', timeout: WORKERS_GONE_MS }).toBe(0);
    after.push(await reachable(cdp));
  }
  const columns = [...KINDS, ...SHOWN, 'JSEventListeners'];
  const table = [columns.join(' | '), ...after.map((c, i) => `${i + 1}: ${columns.map((k) => c[k]).join(' | ')}`)].join('\n');
  test.info().annotations.push({ type: 'reachable after each session', description: table });
  process.stdout.write(`reachable after each session:\n${table}\n`);
  const [base, last] = [after[WARM_UP - 1]!, after.at(-1)!];
  for (const kind of [...KINDS, 'JSEventListeners']) expect(last[kind], `${kind} after each session:\n${table}`).toBeLessThanOrEqual(base[kind]!);
});
