/**
 * What the VAD worker's thread does in the app's call: its CPU from /proc over a window, then a
 * V8 CPU profile of the worker (attached through the browser's CDP target) summed by where the
 * time went: onnxruntime's wasm (the model's inference), the worker's script by source file
 * (through the build's source maps), the garbage collector, the rest. Not a benchmark with goals
 * (bench/call-cost.mjs is); a tool for telling whether the detector's cost is its inference or
 * the work around it.
 *
 *   node bench/call-cost/worker.mjs   (after node bench/call-cost.mjs, whose builds it uses)
 *   env: BENCH_WORKER_S (60): the profiled window; BENCH_WORKER_RATE (1): CPU throttling of the page
 */
import { join } from 'node:path';
import { sourceLocator } from '../_cpu-profile.mjs';
import { BUILD_DIR, runCall } from './session.mjs';
import { withBenchCalls } from './tools.mjs';

const PROFILE_S = Number(process.env.BENCH_WORKER_S ?? 60);
const RATE = Number(process.env.BENCH_WORKER_RATE ?? 1);
const SPECIAL = new Set(['(idle)', '(program)', '(garbage collector)', '(root)']);

/** Sends CDP commands to a worker target through the browser session (a non-flat attachment). */
async function attachWorker(browser) {
  const cdp = await browser.newBrowserCDPSession();
  const { targetInfos } = await cdp.send('Target.getTargets');
  const worker = targetInfos.find((t) => t.type === 'worker' && /vad\.worker/.test(t.url));
  if (!worker) throw new Error(`no VAD worker among the targets: ${targetInfos.map((t) => `${t.type} ${t.url}`).join(', ')}`);
  const { sessionId } = await cdp.send('Target.attachToTarget', { targetId: worker.targetId, flatten: false });
  let nextId = 0;
  const pending = new Map();
  cdp.on('Target.receivedMessageFromTarget', (event) => {
    const message = JSON.parse(event.message);
    const settle = pending.get(message.id);
    if (!settle) return;
    pending.delete(message.id);
    if (message.error) settle.reject(new Error(`${message.error.message} (worker)`));
    else settle.resolve(message.result);
  });
  return {
    url: worker.url,
    send: (method, params = {}) =>
      new Promise((resolve, reject) => {
        const id = ++nextId;
        pending.set(id, { resolve, reject });
        cdp.send('Target.sendMessageToTarget', { sessionId, message: JSON.stringify({ id, method, params }) }).catch(reject);
      }),
  };
}

/** The profile's sample time (ms) by where it went. */
function attribute(profile) {
  const locate = sourceLocator(join(BUILD_DIR, 'assets'));
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const ms = {};
  const add = (key, value) => (ms[key] = (ms[key] ?? 0) + value);
  profile.samples.forEach((id, i) => {
    const { functionName, url, lineNumber, columnNumber } = byId.get(id).callFrame;
    const dt = (profile.timeDeltas[i] ?? 0) / 1000;
    if (SPECIAL.has(functionName)) add(functionName, dt);
    else if (url.endsWith('.wasm') || url.startsWith('wasm')) add('onnxruntime wasm (inference)', dt);
    else if (url.includes('/assets/')) add(locate({ url, lineNumber, columnNumber }) ?? `unmapped ${url.split('/').pop()}`, dt);
    else add(functionName ? `native ${functionName}` : 'native', dt);
  });
  return ms;
}

await withBenchCalls(async (call) => {
  let profile = null;
  const result = await runCall({
    ...call,
    client: 'app',
    rate: RATE,
    warmupS: 25,
    windows: [PROFILE_S],
    async afterWindows(_page, browser) {
      const worker = await attachWorker(browser);
      await worker.send('Profiler.enable');
      await worker.send('Profiler.setSamplingInterval', { interval: 500 });
      await worker.send('Profiler.start');
      await new Promise((resolve) => setTimeout(resolve, PROFILE_S * 1000));
      profile = (await worker.send('Profiler.stop')).profile;
    },
  });
  const thread = result.windows[0].byThreadSPerMin['renderer: DedicatedWorker'] ?? 0;
  console.log(`The VAD worker's thread at ${RATE}×, unprofiled (${PROFILE_S} s window, /proc): ${thread.toFixed(2)} s/min of CPU`);
  const ms = attribute(profile);
  const minutes = (profile.endTime - profile.startTime) / 60e6;
  const busy = Object.entries(ms).filter(([key]) => key !== '(idle)');
  const total = busy.reduce((sum, [, value]) => sum + value, 0);
  console.log(`Profiled (${PROFILE_S} s, sampling every 0.5 ms, so a little above the unprofiled figure): ${(total / minutes).toFixed(0)} ms a minute busy`);
  for (const [key, value] of busy.sort((a, b) => b[1] - a[1]).slice(0, 12)) {
    console.log(`  ${(value / minutes).toFixed(0).padStart(5)} ms/min  ${((100 * value) / total).toFixed(0).padStart(3)} %  ${key}`);
  }
});
