import { describe, expect, it } from 'vitest';
import { qualityLevel, qualityRank } from './quality.ts';

describe('qualityLevel (docs/requirements.md R115, inclusive boundaries, downstream bitrate)', () => {
  it.each([
    // exactly on each row's limits: the row is met
    [1000, 1, 100, 'excellent'],
    [500, 3, 200, 'good'],
    [300, 5, 300, 'fair'],
    // one step past a single limit drops exactly one row
    [999.9, 1, 100, 'good'],
    [1000, 1.01, 100, 'good'],
    [1000, 1, 100.1, 'good'],
    [499.9, 3, 200, 'fair'],
    [500, 3.01, 200, 'fair'],
    [500, 3, 200.1, 'fair'],
    [299.9, 5, 300, 'poor'],
    [300, 5.01, 300, 'poor'],
    [300, 5, 300.1, 'poor'],
    // the worst metric decides
    [5000, 0, 301, 'poor'],
    [5000, 4, 10, 'fair'],
    [0, 0, 0, 'poor'],
  ] as const)('%s kbps, %s %% loss, %s ms RTT → %s', (kbps, lossPct, rttMs, level) => {
    expect(qualityLevel({ kbps, lossPct, rttMs })).toBe(level);
  });

  it('has no level without a bitrate (the first sample of a connection)', () => {
    expect(qualityLevel({ kbps: null, lossPct: 0, rttMs: 20 })).toBeNull();
    expect(qualityLevel({ kbps: Number.NaN, lossPct: 0, rttMs: 20 })).toBeNull();
  });

  it('judges by the known values when loss or RTT is missing', () => {
    expect(qualityLevel({ kbps: 1200, lossPct: null, rttMs: 50 })).toBe('excellent');
    expect(qualityLevel({ kbps: 1200, lossPct: 2, rttMs: null })).toBe('good');
    expect(qualityLevel({ kbps: 100, lossPct: null, rttMs: null })).toBe('poor');
  });

  it('ranks levels for the sparkline', () => {
    expect([qualityRank('excellent'), qualityRank('good'), qualityRank('fair'), qualityRank('poor')]).toEqual([3, 2, 1, 0]);
    expect(qualityRank(null)).toBeNull();
  });
});
