import { useId } from 'react';
import { useIntl, type IntlShape, type MessageDescriptor } from 'react-intl';
import { useAppDispatch, useAppSelector } from '../../../app/hooks.ts';
import { selectReconnects } from '../../session/sessionSlice.ts';
import { sessionLogDownloadRequested } from '../../sessionLog/middleware.ts';
import { statsMessages } from '../messages.ts';
import type { QualityLevel } from '../quality.ts';
import { selectCandidateType, selectCurrentStats, selectStatsPanelEnabled, selectStatsSeries } from '../selectors.ts';
import { Sparkline } from './Sparkline.tsx';
import './StatsPanel.css';

/** What a missing figure reads as. */
export const NO_VALUE = '—';

function formatted(intl: IntlShape, unit: MessageDescriptor, value: number | null | undefined, digits: number): string {
  if (value === null || value === undefined) return NO_VALUE;
  return intl.formatMessage(unit, { value: intl.formatNumber(value, { maximumFractionDigits: digits }) });
}

/** Typed as a plain descriptor: formatjs's typed messages take no values. */
const RECONNECT_COUNTS: MessageDescriptor = statsMessages.reconnectCounts;

const LEVEL_WORDS: Record<QualityLevel, MessageDescriptor> = {
  excellent: statsMessages.excellent,
  good: statsMessages.good,
  fair: statsMessages.fair,
  poor: statsMessages.poor,
};

/**
 * The network stats panel for support staff: upstream, downstream, packet
 * loss, jitter, RTT and the quality level, each with a 5-minute sparkline, the
 * route (the selected local ICE candidate type: is the media relayed?), this session's
 * reconnects, and the session log download. Renders nothing unless the panel is enabled.
 */
export function StatsPanel() {
  const enabled = useAppSelector(selectStatsPanelEnabled);
  return enabled ? <StatsPanelBody /> : null;
}

function StatsPanelBody() {
  const intl = useIntl();
  const dispatch = useAppDispatch();
  const current = useAppSelector(selectCurrentStats);
  const series = useAppSelector(selectStatsSeries);
  const candidateType = useAppSelector(selectCandidateType);
  const reconnects = useAppSelector(selectReconnects);
  const id = useId();
  const level = current?.quality ?? null;

  const rows = [
    { key: 'up', label: statsMessages.upstream, value: formatted(intl, statsMessages.kbps, current?.upKbps, 0), values: series.upKbps },
    { key: 'down', label: statsMessages.downstream, value: formatted(intl, statsMessages.kbps, current?.downKbps, 0), values: series.downKbps },
    { key: 'loss', label: statsMessages.packetLoss, value: formatted(intl, statsMessages.percent, current?.lossPct, 2), values: series.lossPct },
    { key: 'jitter', label: statsMessages.jitter, value: formatted(intl, statsMessages.ms, current?.jitterMs, 0), values: series.jitterMs },
    { key: 'rtt', label: statsMessages.rtt, value: formatted(intl, statsMessages.ms, current?.rttMs, 0), values: series.rttMs },
  ];

  return (
    <section className="stats-panel" aria-label={intl.formatMessage(statsMessages.title)}>
      <dl className="stats-panel__list">
        {rows.map((row) => (
          <div className="stats-panel__row" key={row.key}>
            <dt id={`${id}-${row.key}`}>{intl.formatMessage(row.label)}</dt>
            <dd aria-labelledby={`${id}-${row.key}`}>
              <span className="stats-panel__value">{row.value}</span>
              <Sparkline values={row.values} />
            </dd>
          </div>
        ))}
        <div className="stats-panel__row">
          <dt id={`${id}-quality`}>{intl.formatMessage(statsMessages.quality)}</dt>
          <dd aria-labelledby={`${id}-quality`} className={`stats-panel__quality stats-panel__quality--${level ?? 'none'}`}>
            <span className="stats-panel__value">
              {level && <span className="stats-panel__dot" aria-hidden="true" />}
              {level ? intl.formatMessage(LEVEL_WORDS[level]) : NO_VALUE}
            </span>
            <Sparkline values={series.quality} max={3} />
          </dd>
        </div>
        <div className="stats-panel__row">
          <dt id={`${id}-route`}>{intl.formatMessage(statsMessages.route)}</dt>
          <dd aria-labelledby={`${id}-route`}>
            {/* The WebRTC word as is (host, srflx, prflx, relay): what support staff search for, in every language. */}
            <span className="stats-panel__value">{candidateType ?? NO_VALUE}</span>
          </dd>
        </div>
        <div className="stats-panel__row">
          <dt id={`${id}-reconnects`}>{intl.formatMessage(statsMessages.reconnects)}</dt>
          <dd aria-labelledby={`${id}-reconnects`}>
            <span className="stats-panel__value">{intl.formatMessage(RECONNECT_COUNTS, { media: reconnects.media, signaling: reconnects.signaling })}</span>
          </dd>
        </div>
      </dl>
      <button type="button" className="stats-panel__download" onClick={() => dispatch(sessionLogDownloadRequested())}>
        {intl.formatMessage(statsMessages.download)}
      </button>
    </section>
  );
}
