// The benches' summary statistics (scripts/bench-kit.ts): the median over a bench's rounds is the
// conventional one (the mean of the two middle values of an even count), unlike the nearest-rank
// quantile the p95s use; neither reorders the caller's array.
import { describe, expect, it } from 'vitest';
import { median, quantile } from '../../scripts/bench-kit.ts';

describe('bench summary statistics', () => {
  it('takes the middle value of an odd count and the mean of the two middle values of an even count', () => {
    expect(median([0.84, 0.57, 0.71])).toBe(0.71);
    // Six rounds as bench:pipeline prints them: 0.69x and 0.81x in the middle.
    expect(median([0.53, 0.69, 0.62, 0.84, 0.96, 0.81])).toBeCloseTo(0.75, 10);
    expect(median([2, 1])).toBe(1.5);
    expect(median([5])).toBe(5);
    expect(median([])).toBeNaN();
  });

  it('leaves the input in its order', () => {
    const rounds = [3, 1, 2, 4];
    expect(median(rounds)).toBe(2.5);
    expect(quantile(rounds, 0.5)).toBe(3); // nearest rank: the upper middle
    expect(rounds).toEqual([3, 1, 2, 4]);
  });

  it('reads a quantile by nearest rank, the largest value at p = 1', () => {
    const samples = Array.from({ length: 100 }, (_, i) => 100 - i); // 100 .. 1
    expect(quantile(samples, 0.95)).toBe(96);
    expect(quantile(samples, 1)).toBe(100);
    expect(quantile([], 0.95)).toBeNaN();
  });
});
