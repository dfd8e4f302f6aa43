import { act } from '@testing-library/react';
import { Profiler } from 'react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { restoreAnimate, stubAnimate } from '../../../test/animate.ts';
import { renderWithProviders } from '../../../test/render.tsx';
import { callMoved, initialVoiceState } from '../voiceSlice.ts';

/** The call's machine says the visitor is heard, or no longer. */
const vadSpeechStarted = () => callMoved({ paused: false, muted: false, hearing: true });
const vadSpeechEnded = () => callMoved({ paused: false, muted: false, hearing: false });
import { BAR_LEVELS, BAR_LOOP, BAR_STEP_MS, VoiceStatus } from './VoiceStatus.tsx';


function renderStatus() {
  const renders = { count: 0 };
  const rendered = renderWithProviders(
    <Profiler id="status" onRender={() => (renders.count += 1)}>
      <VoiceStatus />
    </Profiler>,
    { preloadedState: { voice: { ...initialVoiceState, call: 'active' } } },
  );
  const bars = [...rendered.container.querySelectorAll<HTMLElement>('.voice-status__bars i')];
  return { ...rendered, bars, renders };
}

describe('VoiceStatus level bars', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
    vi.unstubAllGlobals();
    restoreAnimate();
  });

  it('bounce in steps while the visitor is heard, each bar on its own phase, run by the browser, and stop when they are not', () => {
    const calls = stubAnimate();
    const { store, bars, renders } = renderStatus();
    expect(bars).toHaveLength(4);
    expect(calls).toHaveLength(0);

    act(() => void store.dispatch(vadSpeechStarted()));
    const rendersWhenHeard = renders.count;
    // Each bar its own animation, in order (toBe: the bars are alike, so only identity tells them apart).
    expect(calls).toHaveLength(4);
    calls.forEach((c, i) => expect(c.element).toBe(bars[i]));
    for (const { keyframes, options } of calls) {
      expect(keyframes).toBe(BAR_LOOP.keyframes);
      expect(options).toMatchObject({ duration: BAR_LEVELS.length * BAR_STEP_MS, iterations: Infinity });
    }
    // A bounce up and down and back where it started, each picture held (step-end), not tweened.
    expect(BAR_LOOP.keyframes.map((k) => k.transform)).toEqual(['scaleY(0.3)', 'scaleY(0.53)', 'scaleY(0.77)', 'scaleY(1)', 'scaleY(0.77)', 'scaleY(0.53)', 'scaleY(0.3)']);
    expect(BAR_LOOP.keyframes.every((k) => k.easing === 'step-end')).toBe(true);
    // Each bar starts elsewhere in the bounce, and no two alike.
    const delays = calls.map((c) => c.options.delay);
    expect(delays).toEqual([-0, -5 * BAR_STEP_MS, -3 * BAR_STEP_MS, -1 * BAR_STEP_MS]);
    // No timer steps them, and nothing renders while they run.
    expect(vi.getTimerCount()).toBe(0);
    expect(renders.count).toBe(rendersWhenHeard);

    act(() => void store.dispatch(vadSpeechEnded()));
    expect(calls.every((c) => c.cancel.mock.calls.length === 1)).toBe(true);
    expect(calls).toHaveLength(4);
  });

  it('stand still for a visitor who asks for reduced motion', () => {
    const calls = stubAnimate();
    vi.stubGlobal('matchMedia', (query: string) => ({ matches: query === '(prefers-reduced-motion: reduce)' }));
    const { store, container } = renderStatus();
    act(() => void store.dispatch(vadSpeechStarted()));
    expect(calls).toHaveLength(0);
    expect(container.querySelector('.voice-status--active')).not.toBeNull();
  });

  it('stand still, and break nothing, where the browser has no Element.animate', () => {
    const { store, container } = renderStatus();
    expect(() => act(() => void store.dispatch(vadSpeechStarted()))).not.toThrow();
    expect(container.querySelector('.voice-status--active')).not.toBeNull();
    act(() => void store.dispatch(vadSpeechEnded()));
    expect(container.querySelector('.voice-status--active')).toBeNull();
  });
});
