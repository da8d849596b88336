import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { marketPools } from './market-pools.ts';
import { openingSeeds } from './opening-seeds.ts';
import { poolPrices } from './pool-price.ts';
import { CHANGE_WINDOWS, type PricePoint, priceAt, priceChange, priceChanges, priceHistory, replayPrices, windowFidelity } from './price-history.ts';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const opening = { yes: 0.5, no: 0.5 };
const t0 = Date.UTC(2025, 0, 1); // a whole day, so grid points fall on it
const series: PricePoint[] = [
  { at: t0 + 1 * HOUR, prices: { yes: 0.6, no: 0.4 } },
  { at: t0 + 2 * HOUR, prices: { yes: 0.55, no: 0.45 } },
  { at: t0 + 2 * HOUR, prices: { yes: 0.7, no: 0.3 } }, // two trades in the same ms: the later wins
  { at: t0 + 5 * HOUR, prices: { yes: 0.65, no: 0.35 } },
];

describe('replayPrices', () => {
  it('replays stakes over the opening pools, in time order', () => {
    const pools = marketPools(openingSeeds('yesno'));
    const points = replayPrices(pools, [
      { at: 20, outcome: 'no', stake: 5_000_000n },
      { at: 10, outcome: 'yes', stake: 10_000_000n },
    ]);
    assert.deepEqual(points, [
      { at: 10, prices: { yes: 60 / 110, no: 50 / 110 } },
      { at: 20, prices: { yes: 60 / 115, no: 55 / 115 } },
    ]);
    assert.deepEqual(poolPrices(pools), { yes: 0.5, no: 0.5 }, 'the opening pools are left alone');
    assert.throws(() => replayPrices(pools, [{ at: 1, outcome: 'draw', stake: 1n }]), RangeError);
  });
});

describe('priceAt and changes', () => {
  it('is the price after the last trade at or before t, else the opening price', () => {
    assert.deepEqual(priceAt(series, opening, t0), opening);
    assert.deepEqual(priceAt([], opening, t0), opening);
    assert.deepEqual(priceAt(series, opening, t0 + HOUR), { yes: 0.6, no: 0.4 });
    assert.deepEqual(priceAt(series, opening, t0 + 2 * HOUR - 1), { yes: 0.6, no: 0.4 });
    assert.deepEqual(priceAt(series, opening, t0 + 2 * HOUR), { yes: 0.7, no: 0.3 });
    assert.deepEqual(priceAt(series, opening, t0 + 100 * DAY), { yes: 0.65, no: 0.35 });
  });

  it('changes by price(now) - price(now - window)', () => {
    const now = t0 + 5 * HOUR + 30 * 60_000;
    assert.equal(priceChange(series, opening, now, HOUR), 0.65 - 0.7);
    assert.equal(priceChange(series, opening, now, 30 * 60_000), 0, 'the 05:00 trade is at or before 05:00');
    assert.equal(priceChange(series, opening, now, HOUR, 'no'), 0.35 - 0.3);
    assert.deepEqual(priceChanges(series, opening, t0 + 5 * HOUR), {
      '1h': 0.65 - 0.7,
      '1d': 0.65 - 0.5,
      '1w': 0.65 - 0.5,
      '1m': 0.65 - 0.5,
    });
    assert.equal(CHANGE_WINDOWS['1m'], 30 * DAY);
    assert.throws(() => priceChange(series, opening, now, HOUR, 'draw'), { status: 400, message: 'Invalid side' });
  });
});

describe('priceHistory', () => {
  it('samples every fidelity minutes on the epoch grid, from the interval start to now', () => {
    const now = t0 + 5 * HOUR + 30 * 60_000; // 05:30
    const points = priceHistory(series, opening, { interval: '1d', fidelity: 60, now, openedAt: t0 });
    const s = (ms: number) => Math.floor(ms / 1000);
    // Starts at the opening (the day began before the market), hourly points, then now.
    assert.deepEqual(points, [
      { t: s(t0), p: 0.5 },
      { t: s(t0 + HOUR), p: 0.6 },
      { t: s(t0 + 2 * HOUR), p: 0.7 },
      { t: s(t0 + 3 * HOUR), p: 0.7 },
      { t: s(t0 + 4 * HOUR), p: 0.7 },
      { t: s(t0 + 5 * HOUR), p: 0.65 },
      { t: s(now), p: 0.65 },
    ]);
  });

  it('starts a window inside the market life at now - window, off the grid', () => {
    const now = t0 + 5 * HOUR + 30 * 60_000;
    const points = priceHistory(series, opening, { interval: '1h', fidelity: 20, now, outcome: 'no' });
    const s = (ms: number) => Math.floor(ms / 1000);
    assert.deepEqual(points, [
      { t: s(t0 + 4 * HOUR + 30 * 60_000), p: 0.3 },
      { t: s(t0 + 4 * HOUR + 40 * 60_000), p: 0.3 },
      { t: s(t0 + 5 * HOUR), p: 0.35 },
      { t: s(t0 + 5 * HOUR + 20 * 60_000), p: 0.35 },
      { t: s(now), p: 0.35 },
    ]);
  });

  it('covers the whole life of the market with `all`, daily by default', () => {
    const now = t0 + 3 * DAY + HOUR;
    const points = priceHistory(series, opening, { interval: 'all', now, openedAt: t0 });
    assert.deepEqual(
      points.map((x) => x.p),
      [0.5, 0.65, 0.65, 0.65, 0.65],
    );
    assert.equal(points[0]!.t, t0 / 1000);
    assert.equal(points.at(-1)!.t, now / 1000);
    // Without openedAt, `all` starts at the first trade.
    assert.equal(priceHistory(series, opening, { interval: 'all', now })[0]!.t, (t0 + HOUR) / 1000);
  });

  it('gives one point for a market opened just now, and refuses bad fidelities', () => {
    assert.deepEqual(priceHistory([], opening, { interval: '1w', now: t0 + 500, openedAt: t0 + 500 }), [{ t: t0 / 1000, p: 0.5 }]);
    for (const fidelity of [0, 1.5, -5, Number.NaN]) {
      assert.throws(() => priceHistory(series, opening, { interval: '1d', fidelity, now: t0 }), {
        status: 400,
        message: 'fidelity must be a whole number of minutes, at least 1',
      });
    }
    assert.throws(() => priceHistory(series, opening, { interval: '1m', fidelity: 1, now: t0 + 40 * DAY }), {
      status: 400,
      message: 'fidelity is too fine for interval 1m: at most 5000 points',
    });
  });
});

describe('priceHistory over a startTs/endTs window', () => {
  const opening = { yes: 0.5, no: 0.5 };
  const H = 3_600_000;
  it('samples from the window start (no earlier than the opening) to its end', () => {
    const pts = priceHistory([], opening, { interval: '1d', fidelity: 60, now: 10 * H, openedAt: 2 * H, from: 0 });
    assert.deepEqual(pts.map((p) => p.t), [2, 3, 4, 5, 6, 7, 8, 9, 10].map((h) => h * 3600));
    assert.deepEqual(priceHistory([], opening, { interval: '1d', fidelity: 60, now: H, openedAt: 2 * H, from: 0 }), [], 'ends before the opening');
  });
  it('caps a window at MAX_HISTORY_POINTS, naming the window', () => {
    assert.throws(
      () => priceHistory([], opening, { interval: '1d', fidelity: 1, now: 6000 * 60_000, from: 0 }),
      /fidelity is too fine for the window startTs\.\.endTs: at most 5000 points/,
    );
  });
  it('defaults the fidelity of a window to that of the shortest interval covering it', () => {
    assert.deepEqual([H, H + 1, 24 * H, 7 * 24 * H, 30 * 24 * H, 31 * 24 * H].map(windowFidelity), [1, 5, 5, 60, 180, 1440]);
  });
});
