/**
 * What a log entry means to a person reading a timeline: the state changes it
 * caused, the errors it shows, the stats level it set. Shared by the replay
 * viewer (markers, side list) and the CLI so both tell the same story.
 *
 * States are read loosely: a log may come from an older or newer app version,
 * so a missing slice or field simply yields no item.
 */
import type { LogEntry } from '../sessionLog/types.ts';
import { candidateTypeOf } from '../stats/derive.ts';

export type TimelineKind = 'load' | 'state' | 'error' | 'stats' | 'request';

export interface TimelineItem {
  kind: TimelineKind;
  text: string;
}

type Obj = Record<string, unknown>;

function obj(value: unknown): Obj | undefined {
  return typeof value === 'object' && value !== null ? (value as Obj) : undefined;
}

function field(state: unknown, slice: string, name: string): unknown {
  return obj(obj(state)?.[slice])?.[name];
}

function show(value: unknown): string {
  if (value === null || value === undefined) return '—';
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' ? String(value) : JSON.stringify(value);
}

export function formatTime(ms: number): string {
  const total = Math.max(0, Math.round(ms));
  const millis = String(total % 1000).padStart(3, '0');
  const seconds = Math.floor(total / 1000);
  const ss = String(seconds % 60).padStart(2, '0');
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}:${ss}.${millis}`;
  return `${Math.floor(minutes / 60)}:${String(minutes % 60).padStart(2, '0')}:${ss}.${millis}`;
}

/** A notice message: a catalogue id or a server's raw text. */
export function noticeText(notice: unknown): string {
  const message = obj(obj(notice)?.message);
  if (typeof message?.id === 'string') return message.id;
  if (typeof message?.text === 'string') return JSON.stringify(message.text);
  return '?';
}

function statsText(current: unknown): string {
  const s = obj(current);
  if (!s) return 'no figures';
  const unit = (v: unknown, u: string) => (typeof v === 'number' ? `${v}${u}` : '—');
  // Logs recorded before the route was sampled have no candidateType: nothing is added for them.
  const route = candidateTypeOf(s.candidateType);
  return `down ${unit(s.downKbps, ' kbps')}, up ${unit(s.upKbps, ' kbps')}, loss ${unit(s.lossPct, '%')}, jitter ${unit(s.jitterMs, ' ms')}, RTT ${unit(s.rttMs, ' ms')}${route ? `, route ${route}` : ''}`;
}

function change(items: TimelineItem[], before: unknown, after: unknown, slice: string, name: string, label: string) {
  const a = field(before, slice, name);
  const b = field(after, slice, name);
  if (a !== b && b !== undefined) items.push({ kind: 'state', text: `${label} ${show(a)} → ${show(b)}` });
}

/** Whether the visitor saw the reconnect hint in `state` (selectReconnecting, read from a log's untyped state). */
function reconnectHint(state: unknown): boolean {
  if (field(state, 'session', 'status') !== 'live') return false;
  const signaling = field(state, 'session', 'signaling');
  const recovery = field(state, 'session', 'mediaRecovery');
  return signaling === 'reconnecting' || signaling === 'resuming' || (typeof recovery === 'string' && recovery !== 'idle');
}

function stateItems(before: unknown, after: unknown): TimelineItem[] {
  const items: TimelineItem[] = [];
  if (before === after) return items;
  change(items, before, after, 'account', 'status', 'account');
  const status = field(after, 'session', 'status');
  if (field(before, 'session', 'status') !== status && status !== undefined) {
    const reason = field(after, 'session', 'endReason');
    const suffix = status === 'ending' && typeof reason === 'string' ? ` (${reason})` : '';
    items.push({ kind: 'state', text: `session ${show(field(before, 'session', 'status'))} → ${show(status)}${suffix}` });
  }
  const phase = field(after, 'session', 'phase');
  if (phase !== field(before, 'session', 'phase') && typeof phase === 'string') items.push({ kind: 'state', text: `connecting: ${phase}` });
  change(items, before, after, 'session', 'signaling', 'signaling');
  change(items, before, after, 'session', 'media', 'media');
  for (const what of ['media', 'signaling'] as const) {
    const count = obj(field(after, 'session', 'reconnects'))?.[what];
    const previous = obj(field(before, 'session', 'reconnects'))?.[what];
    if (typeof count === 'number' && typeof previous === 'number' && count > previous) items.push({ kind: 'state', text: `${what} reconnect #${count}` });
  }
  // Logs recorded before reconnects were counted per drop counted media attempts here.
  const attempts = field(after, 'session', 'mediaReconnects');
  const previousAttempts = field(before, 'session', 'mediaReconnects');
  if (typeof attempts === 'number' && typeof previousAttempts === 'number' && attempts > previousAttempts)
    items.push({ kind: 'state', text: `media reconnect #${attempts}` });
  if (reconnectHint(before) !== reconnectHint(after)) items.push({ kind: 'state', text: reconnectHint(after) ? 'reconnect hint shown' : 'reconnect hint gone' });
  if (field(after, 'session', 'needsTapToPlay') === true && field(before, 'session', 'needsTapToPlay') !== true)
    items.push({ kind: 'state', text: 'autoplay refused: waiting for a tap' });

  const alert = field(after, 'notices', 'alert');
  if (alert && alert !== field(before, 'notices', 'alert')) items.push({ kind: 'error', text: `alert ${noticeText(alert)}` });
  const oldToasts = field(before, 'notices', 'toasts');
  const newToasts = field(after, 'notices', 'toasts');
  if (Array.isArray(newToasts) && newToasts !== oldToasts) {
    const seen = new Set(Array.isArray(oldToasts) ? oldToasts.map((t) => obj(t)?.key) : []);
    for (const toast of newToasts) if (!seen.has(obj(toast)?.key)) items.push({ kind: 'error', text: `toast ${noticeText(toast)}` });
  }

  const current = field(after, 'stats', 'current');
  const level = obj(current)?.quality;
  const previousLevel = obj(field(before, 'stats', 'current'))?.quality;
  if (current && current !== field(before, 'stats', 'current') && (level ?? null) !== (previousLevel ?? null))
    items.push({ kind: 'stats', text: `quality ${show(level)} (${statsText(current)})` });
  return items;
}

function externalItems(entry: LogEntry): TimelineItem[] {
  if (entry.kind === 'action' || entry.kind === 'store') return [];
  const data = obj(entry.data);
  switch (entry.kind) {
    case 'error': {
      const where = typeof data?.feature === 'string' ? `${data.feature}: ` : '';
      return [{ kind: 'error', text: `error ${where}${show(data?.message ?? entry.data)}` }];
    }
    case 'request': {
      const outcome = show(data?.outcome);
      const result = typeof data?.status === 'number' ? `${data.status} ${outcome}` : outcome;
      const ms = typeof data?.ms === 'number' ? ` ${Math.round(data.ms)} ms` : '';
      const text = `request ${show(data?.method)} ${show(data?.url)} → ${result}${ms}`;
      return [{ kind: data?.outcome === 'ok' ? 'request' : 'error', text }];
    }
    case 'peer':
    case 'ice':
      return typeof data?.state === 'string' ? [{ kind: 'state', text: `${entry.kind} ${data.state}` }] : [];
    default:
      return [];
  }
}

/** The items one entry contributes, given the replayed states just before and after it. */
export function describeEntry(entry: LogEntry, before: unknown, after: unknown): TimelineItem[] {
  if (entry.kind === 'store') return [{ kind: 'load', text: entry.reload ? 'page reloaded' : 'page loaded' }];
  if (entry.kind === 'action') return stateItems(before, after);
  return externalItems(entry);
}

/** One line for the side list: what the entry is, not what it changed. */
export function entrySummary(entry: LogEntry): string {
  if (entry.kind === 'action') return entry.action.type;
  if (entry.kind === 'store') return entry.reload ? 'store (reload)' : 'store';
  const data = obj(entry.data);
  if (entry.kind === 'request') return externalItems(entry)[0]?.text ?? 'request';
  if (entry.kind === 'signaling') {
    const what = data?.type ?? data?.msg_type ?? data?.event;
    return `signaling ${show(data?.dir ?? '')} ${show(what)}`.replace(/\s+/g, ' ');
  }
  let text = `${entry.kind} ${JSON.stringify(entry.data) ?? ''}`;
  if ((entry.kind === 'log' || entry.kind === 'error') && typeof data?.message === 'string') {
    // A client log line reads as one: "warn media: media dropped {"state":"disconnected"}".
    const level = entry.kind === 'error' ? 'error' : show(data.level ?? 'log');
    const where = typeof data.feature === 'string' ? `${data.feature}: ` : '';
    text = `${level} ${where}${data.message}${data.data === undefined ? '' : ` ${JSON.stringify(data.data)}`}`;
  }
  return text.length > 100 ? `${text.slice(0, 99)}…` : text;
}
