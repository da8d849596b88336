import { sql } from 'kysely';
import { badRequest } from '../../shared/errors.ts';
import type { Db } from '../../storage/database.ts';
import {
  CHANGE_WINDOWS,
  DEFAULT_FIDELITY,
  type HistoryInterval,
  type Outcome,
  type PricePoint,
  type Prices,
  marketOutcomes,
  priceHistory,
} from '../pricing/index.ts';
import { MARKET_COLUMNS, type MarketReadRow, type TradePrices } from './market-row.ts';
import { openingPricesOf } from '../markets/market-row-pools.ts';
import { pricePoint } from './market-view.ts';

export const HISTORY_INTERVALS = ['1h', '1d', '1w', '1m', 'all'] as const;

export interface HistoryRequest {
  readonly interval: HistoryInterval;
  /** Minutes between points; default per interval (DEFAULT_FIDELITY). */
  readonly fidelity?: number;
  /** The outcome `p` follows; default `yes`. */
  readonly outcome?: Outcome;
}

export interface HistoryPoint {
  t: number;
  p: number;
  prices: Prices;
}

interface TradeRow {
  created_at: Date;
  price_yes_after: number;
  price_no_after: number;
  price_draw_after: number | null;
}

const asPrices = (r: TradeRow): TradePrices => ({ at: r.created_at, yes: r.price_yes_after, no: r.price_no_after, draw: r.price_draw_after });

/**
 * The trades that decide the samples: the last one at or before `start`, and the last one of
 * each fidelity step in (start, now]. Samples fall on step boundaries (and start and now), so
 * the other trades of a step can never be "the last trade at or before" a sample.
 */
async function sampledSeries(db: Db, row: MarketReadRow, start: Date, now: Date, stepMs: number): Promise<PricePoint[]> {
  const [before, within] = await Promise.all([
    sql<TradeRow>`select created_at, price_yes_after, price_no_after, price_draw_after from trades
      where market_id = ${row.id} and created_at <= ${start} order by created_at desc, id desc limit 1`.execute(db),
    sql<TradeRow>`select created_at, price_yes_after, price_no_after, price_draw_after from (
        select distinct on (b) created_at, id, price_yes_after, price_no_after, price_draw_after from (
          select t.*, ceil(floor(extract(epoch from t.created_at) * 1000) / ${stepMs}) as b from trades t
          where t.market_id = ${row.id} and t.created_at > ${start} and t.created_at <= ${now}) x
        order by b, created_at desc, id desc) y
      order by created_at, id`.execute(db),
  ]);
  return [...before.rows, ...within.rows].map((r) => pricePoint(asPrices(r), row));
}

/**
 * GET /api/markets/:id/history: the market's prices sampled every `fidelity` minutes over the
 * interval, Polymarket's `{history: [{t, p}]}` with every outcome's price beside `p`. Null when
 * there is no such market; 400 (from priceHistory) when the fidelity gives too many points.
 */
export async function getMarketHistory(db: Db, id: number, req: HistoryRequest, now: Date) {
  const r = await sql<MarketReadRow>`select ${MARKET_COLUMNS} from markets m where m.id = ${id}`.execute(db);
  const row = r.rows[0];
  if (!row) return null;
  const outcome = req.outcome ?? 'yes';
  const fidelity = req.fidelity ?? DEFAULT_FIDELITY[req.interval];
  const opening = openingPricesOf(row);
  const query = { interval: req.interval, fidelity, now: now.getTime(), openedAt: row.created_at.getTime() };
  const outcomes = marketOutcomes(row.market_type);
  if (!outcomes.includes(outcome)) throw badRequest(`Invalid outcome: must be one of ${outcomes.join(', ')}`);
  // Refuses a too fine fidelity before reading any trade.
  priceHistory([], opening, query);
  // No trade precedes the market's opening, so the window's start needs no clamping here.
  const start = req.interval === 'all' ? Math.min(query.now, query.openedAt) : query.now - CHANGE_WINDOWS[req.interval];
  const series = await sampledSeries(db, row, new Date(start), now, fidelity * 60_000);
  const perOutcome = outcomes.map((o) => priceHistory(series, opening, { ...query, outcome: o }));
  const main = priceHistory(series, opening, { ...query, outcome });
  const history: HistoryPoint[] = main.map((pt, i) => ({
    t: pt.t,
    p: pt.p,
    prices: Object.fromEntries(outcomes.map((o, k) => [o, perOutcome[k]![i]!.p])) as unknown as Prices,
  }));
  return { market_id: row.id, market_type: row.market_type, outcome, interval: req.interval, fidelity, history };
}
