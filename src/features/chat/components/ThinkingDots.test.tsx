import { act, screen } from '@testing-library/react';
import { Profiler } from 'react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { renderWithProviders } from '../../../test/render.tsx';
import { DOT_STEP_MS, ThinkingDots } from './ThinkingDots.tsx';

/** Which of the three dots is up (ChatLog.css raises the dot its container's data-step names). */
const upDot = () => {
  const dots = screen.getByRole('img', { name: 'Thinking' });
  expect(dots.querySelectorAll('.thinking__dot')).toHaveLength(3);
  return Number(dots.getAttribute('data-step'));
};

describe('ThinkingDots', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
    vi.unstubAllGlobals();
  });

  it('puts one dot up at a time, in turn, on a slow timer that goes with the dots', () => {
    let renders = 0;
    const { unmount } = renderWithProviders(
      <Profiler id="dots" onRender={() => (renders += 1)}>
        <ThinkingDots />
      </Profiler>,
    );
    const rendersAtFirst = renders;
    const seen = [upDot()];
    for (let i = 0; i < 4; i += 1) {
      act(() => vi.advanceTimersByTime(DOT_STEP_MS));
      seen.push(upDot());
    }
    expect(seen).toEqual([0, 1, 2, 0, 1]);
    // Stepped in place: no render for a step.
    expect(renders).toBe(rendersAtFirst);
    // Nothing in between: one step per DOT_STEP_MS, not a frame-by-frame animation.
    act(() => vi.advanceTimersByTime(DOT_STEP_MS - 1));
    expect(upDot()).toBe(1);
    unmount();
    expect(vi.getTimerCount()).toBe(0);
  });

  it('steps half as fast for a visitor who asks for reduced motion', () => {
    vi.stubGlobal('matchMedia', (query: string) => ({ matches: query === '(prefers-reduced-motion: reduce)' }));
    renderWithProviders(<ThinkingDots />);
    act(() => vi.advanceTimersByTime(DOT_STEP_MS));
    expect(upDot()).toBe(0);
    act(() => vi.advanceTimersByTime(DOT_STEP_MS));
    expect(upDot()).toBe(1);
  });
});
