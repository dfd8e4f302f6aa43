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
import { summarizeProfile } from './profile.mjs';
import { BUILD_DIR, runCall } from './session.mjs';
import { withBenchCalls } from './tools.mjs';

const PROFILE_S = Number(process.env.BENCH_WORKER_S ?? 60);
const RATE = Number(process.env.BENCH_WORKER_RATE ?? 1);

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
    send: (method, params = {}) =>
      new Promise((resolve, reject) => {
        const id = ++nextId;
        pending.set(id, { resolve, reject });
        cdp.send('Target.sendMessageToTarget', { sessionId, message: JSON.stringify({ id, method, params }) }).catch(reject);
      }),
  };
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
  // onnxruntime's wasm is its own area (the .wasm file's name): the model's inference.
  const summary = summarizeProfile(profile, [['/25d/assets/', join(BUILD_DIR, 'assets')]]);
  const minutes = summary.wallMs / 60_000;
  const perMin = (ms) => (ms / minutes).toFixed(0).padStart(5);
  const share = (ms) => `${((100 * ms) / summary.busyMs).toFixed(0).padStart(3)} %`;
  console.log(`Profiled (${PROFILE_S} s, sampling every 0.5 ms, so a little above the unprofiled figure): ${perMin(summary.busyMs).trim()} ms a minute busy`);
  const rows = [...summary.byArea.map(({ name, ms }) => [name, ms]), ['(garbage collector)', summary.gcMs], ['(program): outside JavaScript', summary.programMs]];
  for (const [name, ms] of rows.sort((a, b) => b[1] - a[1]).slice(0, 12)) console.log(`  ${perMin(ms)} ms/min  ${share(ms)}  ${name}`);
});
