/**
 * Attribution of a V8 CPU profile (DevTools protocol Profiler.stop) of the
 * app's main thread to the session log, through the build's source maps.
 * A helper of session-log-cost.mjs (bench/run.mjs skips files named _*.mjs).
 */
import { existsSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/** A source map's `mappings` → per generated line, [column, source index] segments in column order. */
function decodeMappings(mappings) {
  const lines = [];
  let source = 0;
  for (const line of mappings.split(';')) {
    const segments = [];
    let column = 0;
    for (const segment of line.split(',')) {
      if (!segment) continue;
      const fields = [];
      let value = 0;
      let shift = 0;
      for (const ch of segment) {
        const digit = B64.indexOf(ch);
        value += (digit & 31) << shift;
        if (digit & 32) shift += 5;
        else {
          fields.push(value & 1 ? -(value >>> 1) : value >>> 1);
          value = 0;
          shift = 0;
        }
      }
      column += fields[0];
      if (fields.length >= 4) {
        source += fields[1];
        segments.push([column, source]);
      }
    }
    lines.push(segments);
  }
  return lines;
}

/** The original source file ('src/…', 'node_modules/…') of a position in a built script, or null. */
export function sourceLocator(assetsDir) {
  const maps = new Map();
  const load = (url) => {
    if (!maps.has(url)) {
      const file = join(assetsDir, `${basename(new URL(url).pathname)}.map`);
      const map = existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : null;
      maps.set(url, map && { sources: map.sources.map((s) => s.replace(/^.*?(?=(src|node_modules)\/)/, '')), lines: decodeMappings(map.mappings) });
    }
    return maps.get(url);
  };
  return ({ url, lineNumber, columnNumber }) => {
    const map = load(url);
    const segments = map?.lines[lineNumber];
    if (!segments) return null;
    let found = null;
    for (const [column, source] of segments) {
      if (column > columnNumber) break;
      found = source;
    }
    return found === null ? null : map.sources[found];
  };
}

const SESSION_LOG = 'src/features/sessionLog/';
const MIDDLEWARE = `${SESSION_LOG}middleware.ts`;
/** What the session log middleware's `next` is in a production store: RTK's thunk middleware (see src/app/store.ts). */
const NEXT_MIDDLEWARE = 'node_modules/redux-thunk/';
const SPECIAL = ['(idle)', '(program)', '(garbage collector)', '(root)'];

/**
 * Sums the profile's sample times (µs) by what the main thread was doing: see
 * session-log-cost.mjs for the rules. `assetsDir` holds the built scripts' .map files.
 */
export function attribute(profile, assetsDir) {
  const locate = sourceLocator(assetsDir);
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parentOf = new Map();
  for (const n of profile.nodes) for (const child of n.children ?? []) parentOf.set(child, n.id);
  const memo = new Map();
  const t = { wall: profile.endTime - profile.startTime, busy: 0, app: 0, gc: 0, recorder: 0, export: 0, recorderSamples: 0, samples: 0, unmapped: new Set(), byFile: {} };

  const classify = (id) => {
    if (memo.has(id)) return memo.get(id);
    const name = byId.get(id).callFrame.functionName;
    const kind = { special: SPECIAL.includes(name) ? name : null, app: false, record: null, exportLog: false, handedOn: false };
    // The frame called by the one being looked at: a source path, 'native' (builtins, no URL) or null at the leaf.
    let callee = null;
    let middlewareSeen = false;
    for (let at = id; at !== undefined; at = parentOf.get(at)) {
      const frame = byId.get(at).callFrame;
      if (!frame.url.includes('/25d/assets/')) {
        if (frame.url === '' && !SPECIAL.includes(frame.functionName)) callee = 'native';
        continue;
      }
      kind.app = true;
      const source = locate(frame);
      if (source === null) t.unmapped.add(at);
      if (source === `${SESSION_LOG}exportLog.ts`) kind.exportLog = true;
      else if (source === MIDDLEWARE && !middlewareSeen) {
        middlewareSeen = true;
        // The middleware's own work and what it calls (isAction, match, the recorder), but not `next`:
        // the reducers, sagas and subscribers the action is handed on to are the app's work, not the log's.
        if (callee?.startsWith(NEXT_MIDDLEWARE)) kind.handedOn = true;
        else kind.record ??= MIDDLEWARE;
      } else if (source?.startsWith(SESSION_LOG) && source !== MIDDLEWARE) kind.record ??= source;
      callee = source ?? 'unmapped';
    }
    memo.set(id, kind);
    return kind;
  };

  const times = [];
  let clock = profile.startTime;
  for (const delta of profile.timeDeltas) times.push((clock += delta));
  profile.samples.forEach((id, i) => {
    const weight = (times[i + 1] ?? profile.endTime) - times[i];
    const kind = classify(id);
    t.samples += 1;
    if (kind.special === '(idle)') return;
    t.busy += weight;
    if (kind.special === '(garbage collector)') t.gc += weight;
    if (kind.app) t.app += weight;
    if (kind.exportLog) t.export += weight;
    else if (kind.record) {
      t.recorder += weight;
      t.recorderSamples += 1;
      const file = kind.record.slice(SESSION_LOG.length);
      t.byFile[file] = (t.byFile[file] ?? 0) + weight;
    }
  });
  return t;
}
