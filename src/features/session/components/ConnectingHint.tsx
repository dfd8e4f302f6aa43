import type { MessageDescriptor } from 'react-intl';
import { useIntl } from 'react-intl';
import { catalogue } from '../../notices/messages.ts';
import type { ConnectPhase } from '../sessionSlice.ts';
import { sessionMessages } from '../messages.ts';
import './ConnectingHint.css';

const PHASES: readonly ConnectPhase[] = ['route', 'startLive', 'stream', 'media', 'video'];

const PHASE_TEXT: Record<ConnectPhase, MessageDescriptor> = {
  route: sessionMessages.phaseRoute,
  startLive: sessionMessages.phaseStartLive,
  stream: sessionMessages.phaseStream,
  media: sessionMessages.linking,
  video: sessionMessages.phaseVideo,
};

/**
 * "Connecting…" with the specification's "digital people are on their way" under it, the
 * current step and a progress line; polite live region so steps are announced.
 */
export function ConnectingHint({ phase }: { phase: ConnectPhase | null }) {
  const intl = useIntl();
  const step = phase ? PHASES.indexOf(phase) + 1 : 0;
  // Never full before the video plays: the last stretch is the one the visitor waits for.
  const progress = (step + 0.5) / (PHASES.length + 1);
  return (
    <div className="connecting-hint" aria-live="polite">
      <p className="connecting-hint__title">
        <span className="connecting-hint__dots" aria-hidden="true">
          <i />
          <i />
          <i />
        </span>
        {intl.formatMessage(sessionMessages.connecting)}
      </p>
      <p className="connecting-hint__on-their-way">{intl.formatMessage(catalogue.onTheirWay)}</p>
      {phase && <p className="connecting-hint__phase">{intl.formatMessage(PHASE_TEXT[phase])}</p>}
      <div className="connecting-hint__track" aria-hidden="true">
        <div className="connecting-hint__bar" style={{ transform: `scaleX(${progress})` }} />
      </div>
    </div>
  );
}
