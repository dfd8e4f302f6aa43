import { fireEvent, screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import zh from '../../../../lang/zh.json';
import { rootReducer, type RootState } from '../../../app/store.ts';
import { renderWithProviders } from '../../../test/render.tsx';
import { sessionSlice } from '../../session/sessionSlice.ts';
import { sessionLogDownloadRequested } from '../../sessionLog/middleware.ts';
import { initialStatsState, statsSlice, type StatsSample, type StatsState } from '../statsSlice.ts';
import { sparkPath } from './Sparkline.tsx';
import { StatsPanel } from './StatsPanel.tsx';

rootReducer.inject(statsSlice);

const good: StatsSample = { upKbps: 5, downKbps: 1250, lossPct: 0.55, jitterMs: 12, rttMs: 46, quality: 'excellent', candidateType: 'host' };

function renderPanel(stats: Partial<StatsState>, lang: 'en' | 'zh' = 'en') {
  const preloadedState = { stats: { ...initialStatsState, panelEnabled: true, ...stats } } as Partial<RootState>;
  return renderWithProviders(<StatsPanel />, { preloadedState, lang });
}

describe('StatsPanel', () => {
  it('renders nothing unless showBitrate turned it on', () => {
    const { container } = renderPanel({ panelEnabled: false, current: good });
    expect(container).toBeEmptyDOMElement();
  });

  it('labels every value in the Network stats region', () => {
    renderPanel({ current: good, history: [good, good] });
    const region = screen.getByRole('region', { name: 'Network stats' });
    expect(within(region).getByLabelText('Upstream')).toHaveTextContent('5 kbps');
    expect(within(region).getByLabelText('Downstream')).toHaveTextContent('1,250 kbps');
    expect(within(region).getByLabelText('Packet loss')).toHaveTextContent('0.55%');
    expect(within(region).getByLabelText('Jitter')).toHaveTextContent('12 ms');
    expect(within(region).getByLabelText('RTT')).toHaveTextContent('46 ms');
    expect(within(region).getByLabelText('Route')).toHaveTextContent(/^host$/);
  });

  it('shows the route as the WebRTC word, untranslated: is the media relayed?', () => {
    renderPanel({ current: { ...good, candidateType: 'relay' } });
    const route = within(screen.getByRole('region', { name: 'Network stats' })).getByLabelText('Route');
    expect(route.tagName).toBe('DD');
    expect(route).toHaveTextContent(/^relay$/);
  });

  it('shows — for a route that is missing (a log recorded before it existed) or not a known word (a hand-edited log)', () => {
    const { candidateType: _dropped, ...old } = good;
    for (const current of [{ ...good, candidateType: null }, old, { ...good, candidateType: '<b>x</b>' }, { ...good, candidateType: 7 }]) {
      const { unmount } = renderPanel({ current: current as StatsSample });
      expect(screen.getByLabelText('Route')).toHaveTextContent(/^—$/);
      expect(screen.getByLabelText('Route').querySelector('b')).toBeNull();
      unmount();
    }
  });

  it('shows the session\'s reconnects, one per drop, of the media and of the signaling channel (R117)', () => {
    const session = { ...sessionSlice.getInitialState(), status: 'live' as const, reconnects: { media: 2, signaling: 1 } };
    renderWithProviders(<StatsPanel />, { preloadedState: { stats: { ...initialStatsState, panelEnabled: true, current: good }, session } as Partial<RootState> });
    expect(within(screen.getByRole('region', { name: 'Network stats' })).getByLabelText('Reconnects')).toHaveTextContent(/^media 2, signaling 1$/);
  });

  it('shows the quality level in words and in colour', () => {
    renderPanel({ current: { ...good, quality: 'fair' } });
    const quality = screen.getByLabelText('Quality');
    expect(quality).toHaveTextContent('Fair');
    expect(quality).toHaveClass('stats-panel__quality--fair');
  });

  it('shows — for missing figures', () => {
    renderPanel({ current: { upKbps: null, downKbps: null, lossPct: null, jitterMs: 3, rttMs: null, quality: null, candidateType: null } });
    for (const label of ['Upstream', 'Downstream', 'Packet loss', 'RTT', 'Quality', 'Route']) {
      expect(screen.getByLabelText(label)).toHaveTextContent('—');
    }
    expect(screen.getByLabelText('Jitter')).toHaveTextContent('3 ms');
    expect(screen.getByLabelText('Quality')).toHaveClass('stats-panel__quality--none');
  });

  it('draws a sparkline of the history beside each value', () => {
    renderPanel({ current: good, history: [{ ...good, downKbps: 800 }, good, { ...good, downKbps: 400 }] });
    const sparkline = screen.getByLabelText('Downstream').querySelector('svg path');
    expect(sparkline?.getAttribute('d')).toMatch(/^M[\d.]+ [\d.]+L[\d.]+ [\d.]+L64\.0 [\d.]+$/);
    expect(screen.getByRole('region', { name: 'Network stats' }).querySelectorAll('svg[aria-hidden="true"]')).toHaveLength(6);
  });

  it('asks for the session log download', () => {
    const { dispatched } = renderPanel({ current: good });
    fireEvent.click(screen.getByRole('button', { name: 'Download session log' }));
    expect(dispatched.map((a) => a.type)).toContain(sessionLogDownloadRequested.type);
  });

  it('speaks the visitor’s language', () => {
    renderPanel({ current: good }, 'zh');
    expect(zh['stats.title']).not.toBe('Network stats');
    expect(screen.getByRole('region', { name: zh['stats.title'] })).toBeInTheDocument();
    expect(screen.getByLabelText(zh['stats.quality'])).toHaveTextContent(zh['stats.level.excellent']);
    // the label is translated, the candidate type is not
    expect(zh['stats.route']).not.toBe('Route');
    expect(screen.getByLabelText(zh['stats.route'])).toHaveTextContent(/^host$/);
  });
});

describe('sparkPath', () => {
  it('puts the newest point at the right edge and leaves gaps for missing figures', () => {
    expect(sparkPath([0, 10, null, 5, 10], 40, 12, 5)).toBe('M0.0 11.0L10.0 1.0M30.0 6.0L40.0 1.0');
  });
  it('scales to a fixed maximum and clamps to the drawing', () => {
    expect(sparkPath([3, 0, 9], 20, 12, 3, 3)).toBe('M0.0 1.0L10.0 11.0L20.0 1.0');
  });
  it('spreads a short history over at least minSpan points, then over all of them up to the capacity', () => {
    expect(sparkPath([0, 10], 40, 12, 60, undefined, 5)).toBe('M30.0 11.0L40.0 1.0');
    expect(sparkPath([0, 10, 0, 10, 0, 10], 40, 12, 60, undefined, 5)).toBe('M0.0 11.0L8.0 1.0L16.0 11.0L24.0 1.0L32.0 11.0L40.0 1.0');
  });
  it('draws a lone figure as a dot', () => {
    expect(sparkPath([null, 4, null], 20, 12, 3)).toBe('M10.0 1.0h0');
    expect(sparkPath([4], 20, 12, 60, undefined, 6)).toBe('M20.0 1.0h0');
  });
  it('draws nothing without figures', () => {
    expect(sparkPath([null, null], 20, 12, 60)).toBe('');
    expect(sparkPath([], 20, 12, 60)).toBe('');
  });
});
