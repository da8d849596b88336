import { badRequest } from '../../shared/errors.ts';
import { type MarketPools, type Outcome, marketPools, mapOutcomes, recordOutcomes } from './market-pools.ts';
import { type Prices, poolPrices } from './pool-price.ts';

/** The market's prices from time `at` (ms since the epoch) on, e.g. right after a trade. */
export interface PricePoint {
  readonly at: number;
  readonly prices: Prices;
}

/** A stake as price history needs it: when, on which outcome, how many units. */
export interface StakeEvent {
  readonly at: number;
  readonly outcome: Outcome;
  readonly stake: bigint;
}

/** The windows of `change` / `price_change_*`: 1h, 1d, 1w and 1m (30 days), in ms. */
export const CHANGE_WINDOWS = Object.freeze({ '1h': 3_600_000, '1d': 86_400_000, '1w': 604_800_000, '1m': 2_592_000_000 });

/** A change window name. */
export type ChangeWindow = keyof typeof CHANGE_WINDOWS;

/** The `interval` of a prices-history request: a change window back from now, or `all`. */
export type HistoryInterval = ChangeWindow | 'all';

/** Default `fidelity` (minutes between points) per interval: 60, 288, 168, 240 and daily points. */
export const DEFAULT_FIDELITY: Readonly<Record<HistoryInterval, number>> = Object.freeze({ '1h': 1, '1d': 5, '1w': 60, '1m': 180, all: 1440 });

/** Most points one history answer may hold; a finer fidelity is refused. */
export const MAX_HISTORY_POINTS = 5000;

/**
 * The price series of a market replayed from its stakes: one point per stake (sorted by time,
 * stable), each the exact pool prices after it. `opening` are the market's pools before any trade.
 */
export function replayPrices(opening: MarketPools, stakes: readonly StakeEvent[]): PricePoint[] {
  const outcomes = recordOutcomes(opening);
  const seeds = mapOutcomes(outcomes, (o) => opening[o]!.seed);
  const real = new Map<Outcome, bigint>(outcomes.map((o) => [o, opening[o]!.real]));
  return [...stakes]
    .sort((a, b) => a.at - b.at)
    .map((s) => {
      if (!real.has(s.outcome)) throw new RangeError(`stake on ${s.outcome}, not an outcome of this market`);
      real.set(s.outcome, real.get(s.outcome)! + s.stake);
      const pools = marketPools(seeds, mapOutcomes(outcomes, (o) => real.get(o)!));
      return { at: s.at, prices: poolPrices(pools) };
    });
}

/** The prices at time t: after the last point at or before t, else the opening prices. Series sorted by `at`. */
export function priceAt(series: readonly PricePoint[], opening: Prices, t: number): Prices {
  // Binary search for the last point with at <= t.
  let lo = 0;
  let hi = series.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (series[mid]!.at <= t) lo = mid + 1;
    else hi = mid;
  }
  return lo === 0 ? opening : series[lo - 1]!.prices;
}

/** price(now) - price(now - window) of one outcome (default `yes`). */
export function priceChange(series: readonly PricePoint[], opening: Prices, now: number, windowMs: number, outcome: Outcome = 'yes'): number {
  return outcomePrice(priceAt(series, opening, now), outcome) - outcomePrice(priceAt(series, opening, now - windowMs), outcome);
}

/** The `change` object of a price record: `1h`, `1d`, `1w`, `1m` of one outcome (default `yes`). */
export function priceChanges(series: readonly PricePoint[], opening: Prices, now: number, outcome: Outcome = 'yes'): Record<ChangeWindow, number> {
  const change = (w: ChangeWindow): number => priceChange(series, opening, now, CHANGE_WINDOWS[w], outcome);
  return { '1h': change('1h'), '1d': change('1d'), '1w': change('1w'), '1m': change('1m') };
}

/** A prices-history request, as Polymarket's: `interval` back from `now`, a point every `fidelity` minutes. */
export interface HistoryQuery {
  readonly interval: HistoryInterval;
  /** Minutes between points, a whole number >= 1; default DEFAULT_FIDELITY[interval]. */
  readonly fidelity?: number;
  /** ms since the epoch. */
  readonly now: number;
  /** When the market opened (ms); the history starts no earlier, and `all` starts there. */
  readonly openedAt?: number;
  /** Default `yes`. */
  readonly outcome?: Outcome;
  /**
   * A window's start (ms) in place of the interval's, for startTs/endTs: sampling runs from it
   * (no earlier than openedAt) to `now`, which is then the window's end.
   */
  readonly from?: number;
}

/**
 * The default fidelity of a window of `ms`: that of the shortest interval covering it, so a
 * window gets the points its interval would (a day's window 5-minute points, a year's daily).
 */
export function windowFidelity(ms: number): number {
  for (const w of ['1h', '1d', '1w', '1m'] as const) if (ms <= CHANGE_WINDOWS[w]) return DEFAULT_FIDELITY[w];
  return DEFAULT_FIDELITY.all;
}

/**
 * Samples one outcome's price over an interval: at its start, at every multiple of `fidelity`
 * minutes since the epoch inside it (so caches line up), and at `now` -> [{t (unix s), p}], t
 * ascending and distinct. Throws 400 naming `fidelity` if it is not a whole number >= 1 or would
 * give more than MAX_HISTORY_POINTS points.
 */
export function priceHistory(series: readonly PricePoint[], opening: Prices, query: HistoryQuery): { t: number; p: number }[] {
  const fidelity = query.fidelity ?? DEFAULT_FIDELITY[query.interval];
  if (!Number.isSafeInteger(fidelity) || fidelity < 1) throw badRequest('fidelity must be a whole number of minutes, at least 1');
  const { now } = query;
  const outcome = query.outcome ?? 'yes';
  const earliest = query.openedAt ?? -Infinity;
  const start =
    query.from !== undefined
      ? Math.max(earliest, query.from)
      : query.interval === 'all'
        ? Math.min(now, query.openedAt ?? series[0]?.at ?? now)
        : Math.min(now, Math.max(earliest, now - CHANGE_WINDOWS[query.interval]));
  // A window wholly before the opening (or empty) has no price to show.
  if (start > now) return [];
  const step = fidelity * 60_000;
  if ((now - start) / step + 2 > MAX_HISTORY_POINTS) {
    const over = query.from !== undefined ? 'the window startTs..endTs' : `interval ${query.interval}`;
    throw badRequest(`fidelity is too fine for ${over}: at most ${MAX_HISTORY_POINTS} points`);
  }
  const times = [start];
  for (let t = Math.ceil(start / step) * step; t <= now; t += step) times.push(t);
  times.push(now);
  const points: { t: number; p: number }[] = [];
  for (const at of times) {
    const t = Math.floor(at / 1000);
    const p = outcomePrice(priceAt(series, opening, at), outcome);
    // Samples within one second collapse into the later one.
    if (points.length > 0 && points[points.length - 1]!.t === t) points[points.length - 1] = { t, p };
    else points.push({ t, p });
  }
  return points;
}

function outcomePrice(prices: Prices, outcome: Outcome): number {
  const p = prices[outcome];
  if (p === undefined) throw badRequest('Invalid side');
  return p;
}
