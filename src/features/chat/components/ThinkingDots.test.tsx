import { screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { restoreAnimate, stubAnimate } from '../../../test/animate.ts';
import { renderWithProviders } from '../../../test/render.tsx';
import { DOT_STEP_MS, DOTS_LOOP, STILL_DOTS_LOOP, ThinkingDots } from './ThinkingDots.tsx';


describe('ThinkingDots', () => {
  afterEach(() => {
    vi.unstubAllGlobals();
    restoreAnimate();
  });

  it('puts one dot up at a time, in turn, in a loop the browser runs, which ends with the dots', () => {
    const calls = stubAnimate();
    const { unmount } = renderWithProviders(<ThinkingDots />);
    const dots = [...screen.getByRole('img', { name: 'Thinking' }).querySelectorAll('.thinking__dot')];
    expect(dots).toHaveLength(3);
    // Each dot its own animation, in order (toBe: the dots are alike, so only identity tells them apart).
    expect(calls).toHaveLength(3);
    calls.forEach((c, i) => expect(c.element).toBe(dots[i]));
    // Up for the first third of the loop, then down, held (step-end), not tweened.
    expect(DOTS_LOOP.keyframes).toEqual([
      { opacity: 1, transform: 'translateY(-4px)', easing: 'step-end' },
      { opacity: 0.3, transform: 'translateY(0)', offset: 1 / 3, easing: 'step-end' },
      { opacity: 0.3, transform: 'translateY(0)', offset: 1 },
    ]);
    // Dot 1 is up at the loop's start, dot 2 one step later, dot 3 two steps later.
    for (const { keyframes, options } of calls) {
      expect(keyframes).toBe(DOTS_LOOP.keyframes);
      expect(options).toMatchObject({ duration: 3 * DOT_STEP_MS, iterations: Infinity });
    }
    expect(calls.map((c) => c.options.delay)).toEqual([-0, -2 * DOT_STEP_MS, -DOT_STEP_MS]);
    unmount();
    expect(calls.every((c) => c.cancel.mock.calls.length === 1)).toBe(true);
  });

  it('stay in place and take turns half as fast, by opacity alone, for a visitor who asks for reduced motion', () => {
    const calls = stubAnimate();
    vi.stubGlobal('matchMedia', (query: string) => ({ matches: query === '(prefers-reduced-motion: reduce)' }));
    renderWithProviders(<ThinkingDots />);
    expect(calls).toHaveLength(3);
    for (const { keyframes, options } of calls) {
      expect(keyframes).toBe(STILL_DOTS_LOOP.keyframes);
      expect(options.duration).toBe(6 * DOT_STEP_MS);
    }
    expect(STILL_DOTS_LOOP.keyframes.some((k) => 'transform' in k)).toBe(false);
  });
});
