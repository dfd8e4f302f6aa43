import { useId, useState, type ChangeEvent } from 'react';
import { useIntl, type MessageDescriptor } from 'react-intl';
import { createLogger } from '../../../services/logger.ts';
import { createReplay, type Replay } from '../engine.ts';
import { replayMessages } from '../messages.ts';
import { LogFileError, parseLogFile } from '../parse.ts';
import { ReplayViewer } from './ReplayViewer.tsx';
import './ReplayPage.css';

const log = createLogger('replay');

// Widened to the untyped descriptor: react-intl types defineMessages entries as taking no values.
const INVALID_FILE: MessageDescriptor = replayMessages.invalidFile;

interface Loaded {
  replay: Replay;
  skipped: number;
  /** Changes with every file, so the viewer starts afresh. */
  key: number;
}

/** Blob.text() where there is one; FileReader elsewhere (older Safari, jsdom). */
function readText(file: Blob): Promise<string> {
  if (typeof file.text === 'function') return file.text();
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(typeof reader.result === 'string' ? reader.result : '');
    reader.onerror = () => reject(reader.error ?? new Error('the file could not be read'));
    reader.readAsText(file);
  });
}

/** Reads and replays a file; any failure becomes a reason shown to the person who picked it. */
export async function loadReplay(file: Blob): Promise<{ replay: Replay; skipped: number }> {
  const text = await readText(file);
  const { file: log, skipped } = parseLogFile(text);
  return { replay: createReplay(log), skipped };
}

/**
 * /25d/replay: pick a session log file, then step through it. Default export
 * so the app can load it with React.lazy; nothing here touches the network.
 */
export default function ReplayPage() {
  const intl = useIntl();
  const inputId = useId();
  const [loaded, setLoaded] = useState<Loaded | null>(null);
  const [error, setError] = useState<string | null>(null);

  const onFile = (event: ChangeEvent<HTMLInputElement>) => {
    const file = event.target.files?.[0];
    if (!file) return;
    loadReplay(file).then(
      ({ replay, skipped }) => {
        setError(null);
        setLoaded((prev) => ({ replay, skipped, key: (prev?.key ?? 0) + 1 }));
      },
      (reason: unknown) => {
        const message = reason instanceof LogFileError ? reason.message : String(reason);
        log.warn('session log refused', { name: file.name, reason: message });
        setError(message);
      },
    );
  };

  return (
    <main className="replay-page">
      <header className="replay-page__header">
        <h1>{intl.formatMessage(replayMessages.title)}</h1>
        <label className="replay-page__open" htmlFor={inputId}>
          {intl.formatMessage(replayMessages.openFile)}
        </label>
        <input id={inputId} className="replay-page__file" type="file" accept="application/json,.json" onChange={onFile} />
      </header>
      {error && (
        <p role="alert" className="replay-page__error">
          {intl.formatMessage(INVALID_FILE, { reason: error })}
        </p>
      )}
      {loaded ? (
        <ReplayViewer key={loaded.key} replay={loaded.replay} skipped={loaded.skipped} />
      ) : (
        <p className="replay-page__empty">{intl.formatMessage(replayMessages.empty)}</p>
      )}
    </main>
  );
}
