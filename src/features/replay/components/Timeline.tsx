import { useMemo } from 'react';
import { useIntl } from 'react-intl';
import type { Replay } from '../engine.ts';
import { replayMessages } from '../messages.ts';
import { formatTime } from '../timeline.ts';

interface TimelineProps {
  replay: Replay;
  index: number;
  onSeek: (index: number) => void;
}

interface Mark {
  index: number;
  kind: 'error' | 'state';
  label: string;
}

/** One mark per entry: an entry with both an error and state changes is marked as an error. */
export function groupMarkers(replay: Replay): Mark[] {
  const byIndex = new Map<number, Mark>();
  for (const m of replay.markers) {
    const mark = byIndex.get(m.index);
    if (mark) {
      mark.label += `; ${m.text}`;
      if (m.kind === 'error') mark.kind = 'error';
    } else {
      byIndex.set(m.index, { index: m.index, kind: m.kind, label: `${formatTime(m.t)} ${m.text}` });
    }
  }
  return [...byIndex.values()];
}

/** The seek bar over all entries, with errors (red) and state changes (blue) marked along it. */
export function Timeline({ replay, index, onSeek }: TimelineProps) {
  const intl = useIntl();
  const marks = useMemo(() => groupMarkers(replay), [replay]);
  const last = replay.length - 1;
  const left = (i: number) => `${last > 0 ? (i / last) * 100 : 0}%`;
  return (
    <div className="replay-timeline">
      <input
        className="replay-timeline__range"
        type="range"
        min={-1}
        max={last}
        step={1}
        value={index}
        aria-label={intl.formatMessage(replayMessages.timeline)}
        aria-valuetext={`${index + 1} / ${replay.length}, ${formatTime(replay.entries[index]?.t ?? 0)}`}
        onChange={(event) => onSeek(Number(event.target.value))}
      />
      <ul className="replay-timeline__marks" aria-label={intl.formatMessage(replayMessages.markers)}>
        {marks.map((mark) => (
          <li key={mark.index} style={{ left: left(mark.index) }}>
            <button
              type="button"
              className={`replay-timeline__mark replay-timeline__mark--${mark.kind}`}
              aria-label={mark.label}
              title={mark.label}
              aria-current={mark.index === index ? 'step' : undefined}
              onClick={() => onSeek(mark.index)}
            />
          </li>
        ))}
      </ul>
    </div>
  );
}
