/**
 * The network stats sampler: every 5 s while the session is live it reads
 * getStats() from the live peer connection and puts the derived values
 * (statsSampled). It samples whether or not the panel is shown, so that a
 * session log always carries the figures support staff need.
 */
import { call, delay, put, race, select, take } from 'typed-redux-saga';
import { createLogger } from '../services/logger.ts';
import { deriveStats, type StatsCounters } from '../features/stats/derive.ts';
import {
  STATS_INTERVAL_MS,
  statsSampled,
  statsSamplingStarted,
  statsSamplingStopped,
} from '../features/stats/statsSlice.ts';
import { selectSessionStatus, sessionEnded, sessionEnding, videoPlaying } from '../features/session/sessionSlice.ts';
import { services } from './context.ts';

const log = createLogger('stats');

/** Whatever peer connection is live right now; null between connections (e.g. during a media reconnect). */
export interface StatsSource {
  getStats(): Promise<RTCStatsReport | null>;
}

/** The sampler's clock when a report lacks timestamps; a getter so fake timers in tests drive it. */
const clock = () => Date.now();

function* readReport(source: StatsSource) {
  try {
    return yield* call([source, source.getStats]);
  } catch (error) {
    // A closing peer connection rejects getStats; that interval simply has no figures.
    log.warn('getStats failed', { error: String(error) });
    return null;
  }
}

/** Samples at once (a baseline with jitter and RTT), then every 5 s, until cancelled by the race below. */
function* sampleWhileLive(source: StatsSource) {
  let counters: StatsCounters | null = null;
  for (;;) {
    const report = yield* readReport(source);
    if (report) {
      const derived = deriveStats(counters, report, clock());
      counters = derived.counters;
      yield* put(statsSampled(derived.sample));
    } else {
      // No connection: forget the counters so the next connection starts with a first sample.
      counters = null;
      yield* put(statsSampled(deriveStats(null, null, clock()).sample));
    }
    yield* delay(STATS_INTERVAL_MS);
  }
}

export function* statsSaga() {
  const { statsSource } = yield* services();
  for (;;) {
    const status = yield* select(selectSessionStatus);
    if (status !== 'live') {
      // The session becomes live when the avatar video plays; check the status again then.
      yield* take(videoPlaying.type);
      continue;
    }
    yield* put(statsSamplingStarted());
    try {
      yield* race({
        sampling: call(sampleWhileLive, statsSource),
        ended: take([sessionEnding.type, sessionEnded.type]),
      });
    } finally {
      yield* put(statsSamplingStopped());
    }
  }
}
