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

/** Scrolls `list` (the rows' offsetParent: it is positioned) the least that shows all of `row`. */
function keepInView(list: HTMLElement, row: HTMLElement): void {
  const top = row.offsetTop;
  const bottom = top + row.offsetHeight;
  if (top < list.scrollTop) list.scrollTop = top;
  else if (bottom > list.scrollTop + list.clientHeight) list.scrollTop = Math.min(top, bottom - list.clientHeight);
}

/** The side list of log entries around the current position; a click seeks there. */
export function EntryList({ replay, index, onSeek }: EntryListProps) {
  const intl = useIntl();
  const listRef = useRef<HTMLElement>(null);
  const currentRef = useRef<HTMLLIElement>(null);
  const from = Math.max(0, index - LIST_WINDOW);
  const to = Math.min(replay.length, index + LIST_WINDOW + 1);

  useEffect(() => {
    // Scrolls the list only: scrollIntoView would scroll the page too, and pull the
    // replayed screen out of view at every step on a narrow window.
    const list = listRef.current;
    const row = currentRef.current;
    if (list && row) keepInView(list, row);
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
    <section ref={listRef} className="replay-entries" aria-label={intl.formatMessage(replayMessages.entries)}>
      <ol start={from + 1}>{rows}</ol>
    </section>
  );
}
