import { describe, expect, it } from 'vitest';
import { candidateTypeOf, deriveStats, EMPTY_SAMPLE, toStatsList, type StatsCounters } from './derive.ts';
import first from './fixtures/chrome-first.json';
import steady from './fixtures/chrome-steady.json';
import reconnected from './fixtures/chrome-reconnected.json';
import afterReconnect from './fixtures/chrome-after-reconnect.json';
import missing from './fixtures/chrome-missing-fields.json';

/** Derives a chain of reports the way the sampler does: each call gets the previous counters. */
function chain(...reports: unknown[][]) {
  let counters: StatsCounters | null = null;
  return reports.map((report, i) => {
    const derived = deriveStats(counters, report, i * 5000);
    counters = derived.counters;
    return derived.sample;
  });
}

describe('deriveStats on recorded Chrome reports', () => {
  it('gives no rates on the first sample, but jitter and RTT already', () => {
    const [sample] = chain(first);
    expect(sample).toEqual({ upKbps: null, downKbps: null, lossPct: null, jitterMs: 12, rttMs: 46, quality: null, candidateType: 'host' });
  });

  it('derives bitrates from byte deltas over the report timestamps in steady state', () => {
    const [, sample] = chain(first, steady);
    // candidate pair: +781,250 bytes down and +3,125 up in 5,000 ms
    expect(sample?.downKbps).toBe(1250);
    expect(sample?.upKbps).toBe(5);
    expect(sample?.jitterMs).toBe(12);
    expect(sample?.rttMs).toBe(46);
    expect(sample?.quality).toBe('excellent');
  });

  it('computes packet loss over the interval, not cumulatively', () => {
    const [, sample] = chain(first, steady);
    // interval: video +660 received / +4 lost, audio +250 / +1 → 5 / 915
    expect(sample?.lossPct).toBe(0.55);
    // the cumulative ratio would have been 17 / 6077 = 0.28 %
    expect(sample?.lossPct).not.toBe(0.28);
  });

  it('treats a media reconnect (new ids, smaller counters) as a first sample: no negative rates', () => {
    const samples = chain(first, steady, reconnected, afterReconnect);
    expect(samples[2]).toMatchObject({ upKbps: null, downKbps: null, lossPct: null, quality: null, rttMs: 180, jitterMs: 30 });
    // and the next report on the new connection is a normal interval again: 400 kbps, 10/520 lost, 180 ms → fair
    expect(samples[3]).toMatchObject({ downKbps: 400, upKbps: 5, lossPct: 1.92, rttMs: 180, quality: 'fair' });
  });

  it('treats counters that go backwards under the same ids as a reset', () => {
    const shrunk = steady.map((s) =>
      s.type === 'candidate-pair' || s.type === 'transport'
        ? { ...s, bytesReceived: 1000, bytesSent: 10 }
        : s.type === 'inbound-rtp'
          ? { ...s, packetsReceived: 5 }
          : s,
    );
    const [, , sample] = chain(first, steady, shrunk);
    expect(sample).toMatchObject({ downKbps: null, upKbps: null, lossPct: null });
  });

  it('renders missing fields as null and finds the pair without a transport selection', () => {
    const [, , sample] = chain(first, steady, missing);
    expect(sample).toMatchObject({ rttMs: null, jitterMs: null, lossPct: 0 });
    expect(sample?.downKbps).toBe(1250.1);
    // a missing RTT does not block the level
    expect(sample?.quality).toBe('excellent');
  });

  it('reads the transport when the media arrives on a pair other than the selected one (Chromium receiving from werift)', () => {
    // As Chromium reported it against the stand-in: two nominated pairs; the selected one carries only outgoing STUN.
    const report = (t: number, media: number, stun: number) => [
      { id: 'T01', type: 'transport', timestamp: t, selectedCandidatePairId: 'CPstun', localCertificateId: 'CFa1', bytesReceived: media, bytesSent: stun },
      { id: 'CPmedia', type: 'candidate-pair', timestamp: t, transportId: 'T01', state: 'succeeded', nominated: true, bytesReceived: media, bytesSent: 0 },
      { id: 'CPstun', type: 'candidate-pair', timestamp: t, transportId: 'T01', state: 'succeeded', nominated: true, bytesReceived: 0, bytesSent: stun, currentRoundTripTime: 0.001 },
    ];
    const [, sample] = chain(report(1000, 241_015, 2067), report(6000, 371_568, 3373));
    // +130,553 bytes in 5,000 ms down, +1,306 up
    expect(sample).toMatchObject({ downKbps: 208.9, upKbps: 2.1, rttMs: 1 });
  });

  it('never compares the transports of two peer connections (a media reconnect keeps the id T01)', () => {
    const report = (certificate: string, bytes: number, t: number) => [
      { id: 'T01', type: 'transport', timestamp: t, localCertificateId: certificate, bytesReceived: bytes, bytesSent: 10 },
    ];
    const { counters } = deriveStats(null, report('CFold', 100_000, 0), 0);
    // The new connection has already received more than the old one had: only the key tells them apart.
    expect(deriveStats(counters, report('CFnew', 900_000, 5000), 5000).sample.downKbps).toBeNull();
    expect(deriveStats(counters, report('CFold', 900_000, 5000), 5000).sample.downKbps).toBe(1280);
  });

  it('survives reports that are empty, null or full of garbage', () => {
    const garbage = [null, 3, 'x', { type: 5 }, { id: 'a', type: 'inbound-rtp', packetsReceived: 'many', jitter: -1 }];
    const prev = deriveStats(null, first, 0).counters;
    for (const report of [null, [], garbage, {}]) {
      const { sample } = deriveStats(prev, report as never, 5000);
      expect(sample).toEqual({ upKbps: null, downKbps: null, lossPct: null, jitterMs: null, rttMs: null, quality: null, candidateType: null });
    }
  });

  it('falls back to RTP byte counters and remote-inbound RTT when there is no candidate pair', () => {
    const a = [
      { id: 'IT1', type: 'inbound-rtp', timestamp: 1000, bytesReceived: 0, packetsReceived: 0, packetsLost: 0 },
      { id: 'RI1', type: 'remote-inbound-rtp', timestamp: 1000, roundTripTime: 0.25, jitter: 0.02 },
    ];
    const b = [
      { id: 'IT1', type: 'inbound-rtp', timestamp: 3000, bytesReceived: 150000, packetsReceived: 100, packetsLost: 0 },
      { id: 'RI1', type: 'remote-inbound-rtp', timestamp: 3000, roundTripTime: 0.25, jitter: 0.02 },
    ];
    const [, sample] = chain(a, b);
    expect(sample).toMatchObject({ downKbps: 600, upKbps: null, rttMs: 250, jitterMs: 20, lossPct: 0, quality: 'fair' });
  });

  it('accepts a Map (RTCStatsReport is maplike) as well as arrays and id → stats objects', () => {
    const asMap = new Map(steady.map((s) => [s.id, s]));
    const asObject = Object.fromEntries(asMap);
    expect(toStatsList(asMap)).toHaveLength(steady.length);
    expect(toStatsList(asObject)).toHaveLength(steady.length);
    const prev = deriveStats(null, first, 0).counters;
    expect(deriveStats(prev, asMap, 5000).sample.downKbps).toBe(1250);
  });
});

describe('deriveStats: the route (the selected pair’s local candidate type)', () => {
  const candidateType = (report: unknown[]) => deriveStats(null, report, 0).sample.candidateType;
  const local = (id: string, type: unknown) => ({ id, type: 'local-candidate', candidateType: type });
  const remote = (id: string, type: unknown) => ({ id, type: 'remote-candidate', candidateType: type });

  it('reads host from every recorded Chrome fixture (all of them are host candidates)', () => {
    for (const report of [first, steady, reconnected, afterReconnect, missing]) expect(candidateType(report)).toBe('host');
  });

  it('follows transport.selectedCandidatePairId (Chromium) to a relay local candidate', () => {
    const report = [
      { id: 'T01', type: 'transport', selectedCandidatePairId: 'CPrelay', bytesReceived: 10, bytesSent: 1 },
      // Another nominated, succeeded pair on a host candidate comes first: the transport's choice wins.
      { id: 'CPhost', type: 'candidate-pair', state: 'succeeded', nominated: true, localCandidateId: 'Lhost', remoteCandidateId: 'Rhost' },
      { id: 'CPrelay', type: 'candidate-pair', state: 'succeeded', nominated: true, localCandidateId: 'Lrelay', remoteCandidateId: 'Rhost' },
      local('Lhost', 'host'),
      local('Lrelay', 'relay'),
      remote('Rhost', 'host'),
    ];
    expect(candidateType(report)).toBe('relay');
  });

  it('reads the local candidate, never the remote one', () => {
    const report = [
      { id: 'T01', type: 'transport', selectedCandidatePairId: 'CP1' },
      { id: 'CP1', type: 'candidate-pair', state: 'succeeded', nominated: true, localCandidateId: 'L1', remoteCandidateId: 'R1' },
      local('L1', 'srflx'),
      remote('R1', 'relay'),
    ];
    expect(candidateType(report)).toBe('srflx');
  });

  it('takes Firefox’s `selected: true` pair when there are no transport stats', () => {
    const report = [
      { id: 'p1', type: 'candidate-pair', state: 'succeeded', nominated: true, selected: false, localCandidateId: 'l1', remoteCandidateId: 'r1' },
      { id: 'p2', type: 'candidate-pair', state: 'succeeded', nominated: true, selected: true, localCandidateId: 'l2', remoteCandidateId: 'r1' },
      local('l1', 'relay'),
      local('l2', 'host'),
      remote('r1', 'host'),
    ];
    expect(candidateType(report)).toBe('host');
  });

  it('reports prflx as the browser does', () => {
    const report = [{ id: 'CP', type: 'candidate-pair', selected: true, localCandidateId: 'L' }, local('L', 'prflx')];
    expect(candidateType(report)).toBe('prflx');
  });

  it('is null when the local candidate is missing, unnamed, or only a remote candidate has the id', () => {
    const pair = { id: 'CP', type: 'candidate-pair', state: 'succeeded', nominated: true, localCandidateId: 'L' };
    expect(candidateType([{ id: 'T01', type: 'transport', selectedCandidatePairId: 'CP' }, pair])).toBeNull();
    expect(candidateType([{ ...pair, localCandidateId: undefined }, local('L', 'relay')])).toBeNull();
    expect(candidateType([{ ...pair, localCandidateId: 7 }, local(7 as never, 'relay')])).toBeNull();
    expect(candidateType([pair, remote('L', 'relay')])).toBeNull();
    // no pair in use at all: a succeeded pair that is not nominated is not the route
    expect(candidateType([{ ...pair, nominated: false }, local('L', 'relay')])).toBeNull();
  });

  it('never passes on a value other than the four known words', () => {
    const pair = { id: 'CP', type: 'candidate-pair', selected: true, localCandidateId: 'L' };
    for (const bogus of ['<b>x</b>', 'RELAY', ' relay', 'relay ', '', 'turn', 42, null, undefined, { toString: () => 'relay' }, ['relay']]) {
      expect(candidateType([pair, local('L', bogus)])).toBeNull();
    }
  });

  it('starts empty', () => {
    expect(EMPTY_SAMPLE.candidateType).toBeNull();
  });
});

describe('candidateTypeOf', () => {
  it('accepts host, srflx, prflx and relay only', () => {
    for (const word of ['host', 'srflx', 'prflx', 'relay']) expect(candidateTypeOf(word)).toBe(word);
    for (const other of ['<b>x</b>', 'Host', 'constructor', 'toString', '__proto__', 1, true, null, undefined, {}]) expect(candidateTypeOf(other)).toBeNull();
  });
});
