/**
 * A V8 CPU profile of a page's main thread (DevTools protocol Profiler.stop), read through
 * the build's source maps: where a minute of the call goes, by source area (src/features/chat,
 * react-dom, the Speech SDK…) and by function. A helper of bench/call-cost.mjs.
 *
 * A sample in a builtin or native function (no URL) counts for the nearest caller that has
 * one; samples with no script at all are the engine's own: (idle), (program) (the renderer's
 * work outside JavaScript: style, layout, paint, media, IPC), (garbage collector).
 */
import { sourceLocator } from '../_cpu-profile.mjs';

const SPECIAL = new Set(['(idle)', '(program)', '(garbage collector)', '(root)']);

/** A source file as an area: a package (node_modules/x, @scope/x), src/ two folders deep, or the file. */
export function areaOf(source) {
  if (!source) return '(unmapped script)';
  const pkg = /node_modules\/((@[^/]+\/)?[^/]+)/.exec(source);
  if (pkg) return pkg[1];
  const parts = source.split('/');
  if (parts[0] === 'src' || parts[0] === 'bench') return parts.slice(0, Math.min(parts.length - 1, 3)).join('/');
  return source;
}

/**
 * Sums the profile's sample times by area and by function. `locators`: [urlPart, assetsDir]
 * pairs; a script whose URL contains urlPart is mapped with the .map files in assetsDir.
 */
export function summarizeProfile(profile, locators) {
  const maps = locators.map(([part, dir]) => [part, sourceLocator(dir)]);
  const locate = (frame) => {
    const found = maps.find(([part]) => frame.url.includes(part));
    return found ? found[1](frame) : null;
  };
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parentOf = new Map();
  for (const n of profile.nodes) for (const child of n.children ?? []) parentOf.set(child, n.id);
  const memo = new Map();
  /** The node that a sample of `id` counts for: itself, or its nearest caller with a script URL. */
  const owner = (id) => {
    if (memo.has(id)) return memo.get(id);
    let at = id;
    while (at !== undefined && !byId.get(at).callFrame.url && !SPECIAL.has(byId.get(at).callFrame.functionName)) at = parentOf.get(at);
    const node = at === undefined ? byId.get(id) : byId.get(at);
    const frame = node.callFrame;
    const special = SPECIAL.has(frame.functionName) ? frame.functionName : null;
    const source = special ? null : frame.url ? locate(frame) : null;
    const result = {
      special: special ?? (frame.url ? null : '(native, no caller)'),
      area: special ? null : frame.url ? areaOf(source ?? frame.url.replace(/^.*\//, '')) : null,
      fn: `${frame.functionName || '(anonymous)'} ${source ?? frame.url.replace(/^.*\//, '')}:${frame.lineNumber + 1}`,
    };
    memo.set(id, result);
    return result;
  };

  /** The outermost script frame of a sample: the entry point that the work was done for (a message handler, a timer…). */
  const entryMemo = new Map();
  const entry = (id) => {
    if (entryMemo.has(id)) return entryMemo.get(id);
    let found = null;
    for (let at = id; at !== undefined; at = parentOf.get(at)) {
      const frame = byId.get(at).callFrame;
      if (frame.url) found = frame;
    }
    const result = found ? `${found.functionName || '(anonymous)'} ${locate(found) ?? found.url.replace(/^.*\//, '')}:${found.lineNumber + 1}` : null;
    entryMemo.set(id, result);
    return result;
  };

  const totals = { wallMs: (profile.endTime - profile.startTime) / 1000, idleMs: 0, programMs: 0, gcMs: 0, scriptMs: 0 };
  const byArea = {};
  const byFunction = {};
  const byEntry = {};
  let clock = profile.startTime;
  const times = profile.timeDeltas.map((d) => (clock += d));
  profile.samples.forEach((id, i) => {
    const ms = ((times[i + 1] ?? profile.endTime) - times[i]) / 1000;
    const o = owner(id);
    if (o.special === '(idle)') totals.idleMs += ms;
    else if (o.special === '(garbage collector)') totals.gcMs += ms;
    else if (o.special) totals.programMs += ms;
    else {
      totals.scriptMs += ms;
      byArea[o.area] = (byArea[o.area] ?? 0) + ms;
      byFunction[o.fn] = (byFunction[o.fn] ?? 0) + ms;
      const e = entry(id);
      if (e) byEntry[e] = (byEntry[e] ?? 0) + ms;
    }
  });
  const sorted = (o, n) =>
    Object.entries(o)
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([name, ms]) => ({ name, ms: Number(ms.toFixed(1)) }));
  const round = (v) => Number(v.toFixed(1));
  return {
    wallMs: round(totals.wallMs),
    busyMs: round(totals.wallMs - totals.idleMs),
    scriptMs: round(totals.scriptMs),
    programMs: round(totals.programMs),
    gcMs: round(totals.gcMs),
    byArea: sorted(byArea, 25),
    byFunction: sorted(byFunction, 25),
    byEntry: sorted(byEntry, 25),
  };
}
