import { act } from '@testing-library/react';
import { Profiler } from 'react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { renderWithProviders } from '../../../test/render.tsx';
import { initialVoiceState, vadSpeechEnded, vadSpeechStarted } from '../voiceSlice.ts';
import { BAR_LEVELS, BAR_STEP_MS, VoiceStatus } from './VoiceStatus.tsx';

function renderStatus() {
  const renders = { count: 0 };
  const rendered = renderWithProviders(
    <Profiler id="status" onRender={() => (renders.count += 1)}>
      <VoiceStatus />
    </Profiler>,
    { preloadedState: { voice: { ...initialVoiceState, call: 'active' } } },
  );
  const bars = () => [...rendered.container.querySelectorAll<HTMLElement>('.voice-status__bars i')].map((bar) => bar.style.transform);
  return { ...rendered, bars, renders };
}

describe('VoiceStatus level bars', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
    vi.unstubAllGlobals();
  });

  it('move in steps while the visitor is heard, each bar on its own phase, and stop with no timer left when they are not', () => {
    const { store, bars, renders } = renderStatus();
    expect(bars()).toEqual(['', '', '', '']);
    expect(vi.getTimerCount()).toBe(0);

    act(() => void store.dispatch(vadSpeechStarted()));
    const rendersWhenHeard = renders.count;
    const seen = [bars()];
    for (let i = 0; i < BAR_LEVELS.length; i += 1) {
      act(() => vi.advanceTimersByTime(BAR_STEP_MS));
      seen.push(bars());
    }
    expect(seen[0]).toEqual(['scaleY(0.3)', 'scaleY(0.53)', 'scaleY(1)', 'scaleY(0.53)']);
    expect(seen[1]).toEqual(['scaleY(0.53)', 'scaleY(0.3)', 'scaleY(0.77)', 'scaleY(0.77)']);
    // Stepped in place: no render for a step.
    expect(renders.count).toBe(rendersWhenHeard);
    // A whole bounce later, back where they started; every step in between was a new picture.
    expect(seen[BAR_LEVELS.length]).toEqual(seen[0]);
    expect(new Set(seen.slice(0, -1).map(String)).size).toBe(BAR_LEVELS.length);

    act(() => void store.dispatch(vadSpeechEnded()));
    expect(bars()).toEqual(['', '', '', '']);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('stand still for a visitor who asks for reduced motion', () => {
    vi.stubGlobal('matchMedia', (query: string) => ({ matches: query === '(prefers-reduced-motion: reduce)' }));
    const { store, bars } = renderStatus();
    act(() => void store.dispatch(vadSpeechStarted()));
    act(() => vi.advanceTimersByTime(3 * BAR_STEP_MS));
    expect(bars()).toEqual(['', '', '', '']);
    expect(vi.getTimerCount()).toBe(0);
  });
});
