import { describe, expect, it } from 'vitest';
import { frameBudget } from './rate.ts';

describe('a signaling socket’s frame budget', () => {
  const rate = { framesPerSecond: 20, frameBurst: 40, bytesPerSecond: 1000, byteBurst: 4000 };

  it('lets a burst through, then the sustained rate, and refuses beyond either', () => {
    let now = 0;
    const charge = frameBudget(rate, () => now);
    for (let i = 0; i < 40; i++) expect(charge(10)).toBe(true);
    expect(charge(10)).toBe(false);
    now += 1000;
    // One second refills 20 frames (and 1000 bytes).
    const within = Array.from({ length: 25 }, () => charge(10)).filter(Boolean).length;
    expect(within).toBe(20);
  });

  it('counts bytes too: a few large frames use the budget a hundred small ones would not', () => {
    let now = 0;
    const charge = frameBudget(rate, () => now);
    expect(charge(3000)).toBe(true);
    expect(charge(1500)).toBe(false);
    now += 2000;
    expect(charge(1500)).toBe(true);
  });
});
