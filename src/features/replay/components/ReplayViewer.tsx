import { useCallback, useMemo, useState } from 'react';
import { useIntl, type MessageDescriptor } from 'react-intl';
import type { Replay } from '../engine.ts';
import { replayMessages } from '../messages.ts';
import { formatTime } from '../timeline.ts';
import { EntryList } from './EntryList.tsx';
import { ReplayScreen } from './ReplayScreen.tsx';
import { Timeline } from './Timeline.tsx';
import { SPEEDS, usePlayback, type Speed } from './usePlayback.ts';

export interface ReplayViewerProps {
  replay: Replay;
  skipped?: number;
}

/**
 * The replay of one log: the visitor's screen rebuilt from the state after
 * the current entry, the transport controls and timeline, and the entries.
 */
export function ReplayViewer({ replay, skipped = 0 }: ReplayViewerProps) {
  const intl = useIntl();
  // Widened to the untyped descriptor: react-intl types defineMessages entries as taking no values.
  const t = (message: MessageDescriptor, values?: Record<string, string | number>) => intl.formatMessage(message, values);
  const last = replay.length - 1;
  const [index, setIndex] = useState(Math.min(0, last));
  const [playing, setPlaying] = useState(false);
  const [speed, setSpeed] = useState<Speed>(1);

  const seek = useCallback((next: number) => setIndex(Math.min(Math.max(next, -1), last)), [last]);
  const stop = useCallback(() => setPlaying(false), []);
  usePlayback(replay.entries, index, playing, speed, seek, stop);

  const togglePlay = () => {
    // Play at the end starts again from the beginning.
    if (!playing && index >= last) setIndex(Math.min(0, last));
    setPlaying((p) => !p);
  };

  const state = useMemo(() => replay.stateAt(index), [replay, index]);
  const { file } = replay;
  const time = formatTime(replay.entries[index]?.t ?? 0);

  return (
    <div className="replay">
      <p className="replay__meta">
        {t(replayMessages.meta, {
          account: file.accountId ?? '—',
          device: file.deviceId ?? '—',
          version: file.appVersion || '—',
          environment: file.environment || '—',
          startedAt: file.startedAt || '—',
        })}
      </p>
      {file.dropped > 0 && <p className="replay__note">{t(replayMessages.dropped, { count: file.dropped })}</p>}
      {skipped > 0 && <p className="replay__note">{t(replayMessages.skipped, { count: skipped })}</p>}

      <div className="replay__controls">
        <button type="button" onClick={() => seek(index - 1)} disabled={index <= -1}>
          {t(replayMessages.stepBack)}
        </button>
        <button type="button" onClick={togglePlay} disabled={last < 0}>
          {t(playing ? replayMessages.pause : replayMessages.play)}
        </button>
        <button type="button" onClick={() => seek(index + 1)} disabled={index >= last}>
          {t(replayMessages.stepForward)}
        </button>
        <label className="replay__speed">
          {t(replayMessages.speed)}
          <select value={speed} onChange={(e) => setSpeed(Number(e.target.value) as Speed)}>
            {SPEEDS.map((s) => (
              <option key={s} value={s}>
                {t(replayMessages.speedValue, { value: s })}
              </option>
            ))}
          </select>
        </label>
        <output className="replay__position" aria-live="off">
          {t(replayMessages.position, { index: index + 1, total: replay.length, time })}
        </output>
      </div>

      <Timeline replay={replay} index={index} onSeek={seek} />

      <div className="replay__body">
        <ReplayScreen state={state} />
        <EntryList replay={replay} index={index} onSeek={seek} />
      </div>
    </div>
  );
}
