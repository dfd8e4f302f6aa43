/**
 * The phases of the voice bench, driven through the bench page's window.voiceBench
 * (bench/voice/page/main.ts). Each traced phase records its own Chromium trace, so a
 * phase's marks and tasks are never mixed with another's.
 */
// Functions passed to page.evaluate run in the browser.
/* global window */
import { mainThreadPerMinute } from './metrics.mjs';
import { longTasks, mark, parseTrace, TRACE_CATEGORIES } from './trace.mjs';

const sleep = (seconds) => new Promise((resolve) => setTimeout(resolve, seconds * 1000));

/** Runs `body` with the browser tracing; returns its result and the parsed trace. */
async function traced(browser, page, body) {
  await browser.startTracing(page, { categories: TRACE_CATEGORIES });
  const result = await body().catch(async (err) => {
    await browser.stopTracing().catch(() => {});
    throw err;
  });
  return { ...result, trace: parseTrace(await browser.stopTracing()) };
}

/** The page with the microphone open and no VAD: the baseline subtracted from each VAD's figures. */
export async function idlePhase(browser, page, seconds) {
  const { trace, from, to } = await traced(browser, page, async () => {
    const started = await page.evaluate(() => window.voiceBench.mark('idle'));
    await sleep(seconds);
    return { from: started, to: await page.evaluate(() => window.voiceBench.mark('end')) };
  });
  const [start, end] = [mark(trace, 'idle'), mark(trace, 'end')];
  return {
    baseline: mainThreadPerMinute(trace, start, end),
    longTasks: { ...longTasks(trace.main, start, end), observer: await page.evaluate(([a, b]) => window.voiceBench.longTasks(a, b).length, [from, to]) },
  };
}

/**
 * Starts `names` (one after the other), lets them hear `seconds` of audio, stops them.
 * options.trace false: no trace; options.speechHost: recognise our PCM on the stand-in.
 */
export async function vadPhase(browser, page, names, seconds, options = {}) {
  const body = async () => {
    const startOptions = options.speechHost ? { speechHost: options.speechHost } : {};
    const openedAt = await page.evaluate(([n, o]) => window.voiceBench.start(n, o), [names, startOptions]);
    await sleep(seconds);
    const endAt = await page.evaluate(() => window.voiceBench.mark('end'));
    const result = await page.evaluate(() => window.voiceBench.stop());
    const startup = Object.fromEntries(
      await Promise.all(
        result.runs.map(async (r) => [r.name, await page.evaluate(([a, b]) => window.voiceBench.longTasks(a, b), [r.startCalledAt, r.readyAt])]),
      ),
    );
    const steady = await page.evaluate(([a, b]) => window.voiceBench.longTasks(a, b), [openedAt, endAt]);
    return { ...result, pageLongTasks: (name) => ({ startup: startup[name] ?? [], steady }) };
  };
  return options.trace === false ? body() : traced(browser, page, body);
}
