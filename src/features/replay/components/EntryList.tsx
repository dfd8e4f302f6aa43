import { useEffect, useRef } from 'react';
import { useIntl } from 'react-intl';
import type { Replay } from '../engine.ts';
import { replayMessages } from '../messages.ts';
import { entrySummary, formatTime } from '../timeline.ts';

interface EntryListProps {
  replay: Replay;
  index: number;
  onSeek: (index: number) => void;
}

/** Entries rendered on each side of the current one: a 5,000-entry log never becomes 5,000 rows. */
export const LIST_WINDOW = 40;

/** The side list of log entries around the current position; a click seeks there. */
export function EntryList({ replay, index, onSeek }: EntryListProps) {
  const intl = useIntl();
  const currentRef = useRef<HTMLLIElement>(null);
  const from = Math.max(0, index - LIST_WINDOW);
  const to = Math.min(replay.length, index + LIST_WINDOW + 1);

  useEffect(() => {
    // jsdom and old browsers lack scrollIntoView options; the list still works without scrolling.
    currentRef.current?.scrollIntoView?.({ block: 'nearest' });
  }, [index]);

  const rows = [];
  for (let i = from; i < to; i++) {
    const entry = replay.entries[i];
    if (!entry) continue;
    const items = replay.items[i] ?? [];
    const error = items.some((item) => item.kind === 'error');
    rows.push(
      <li
        key={entry.seq}
        ref={i === index ? currentRef : undefined}
        className={`replay-entries__row${error ? ' replay-entries__row--error' : ''}`}
        aria-current={i === index ? 'step' : undefined}
      >
        <button type="button" onClick={() => onSeek(i)}>
          <time>{formatTime(entry.t)}</time> <span className="replay-entries__summary">{entrySummary(entry)}</span>
        </button>
        {items.length > 0 && (
          <ul className="replay-entries__items">
            {items.map((item, k) => (
              <li key={k} className={`replay-entries__item replay-entries__item--${item.kind}`}>
                {item.text}
              </li>
            ))}
          </ul>
        )}
      </li>,
    );
  }

  return (
    <section className="replay-entries" aria-label={intl.formatMessage(replayMessages.entries)}>
      <ol start={from + 1}>{rows}</ol>
    </section>
  );
}
