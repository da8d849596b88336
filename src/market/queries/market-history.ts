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
  windowFidelity,
} from '../pricing/index.ts';
import { MARKET_COLUMNS, type MarketReadRow, type TradePrices } from './market-row.ts';
import { openingPricesOf } from '../markets/market-row-pools.ts';
import { marketTime } from '../markets/market-time.ts';
import { pricePoint } from './market-view.ts';

export const HISTORY_INTERVALS = ['1h', '1d', '1w', '1m', 'all'] as const;

export interface HistoryRequest {
  readonly interval: HistoryInterval;
  /** Minutes between points; default per interval (DEFAULT_FIDELITY). */
  readonly fidelity?: number;
  /** The outcome `p` follows; default `yes`. */
  readonly outcome?: Outcome;
  /**
   * A window in unix seconds (Polymarket's startTs/endTs) in place of the interval: from
   * `startTs` (default the opening) to `endTs` (default now; later is read as now).
   */
  readonly window?: { readonly startTs?: number; readonly endTs?: number };
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
 * the other trades of a step can never be "the last trade at or before" a sample. One statement,
 * so both parts read one snapshot: read apart, trades committing between them answered a window
 * opening before them and closing after them, a history no moment of the market had.
 */
async function sampledSeries(db: Db, row: MarketReadRow, start: Date, now: Date, stepMs: number): Promise<PricePoint[]> {
  const r = await sql<TradeRow>`select created_at, price_yes_after, price_no_after, price_draw_after from (
      (select created_at, id, price_yes_after, price_no_after, price_draw_after from trades
        where market_id = ${row.id} and created_at <= ${start} order by created_at desc, id desc limit 1)
      union all
      (select distinct on (b) created_at, id, price_yes_after, price_no_after, price_draw_after from (
          select t.*, ceil(floor(extract(epoch from t.created_at) * 1000) / ${stepMs}) as b from trades t
          where t.market_id = ${row.id} and t.created_at > ${start} and t.created_at <= ${now}) x
        order by b, created_at desc, id desc)) y
    order by created_at, id`.execute(db);
  return r.rows.map((r) => pricePoint(asPrices(r), row));
}

/**
 * GET /api/markets/:id/history: the market's prices sampled every `fidelity` minutes over the
 * interval, Polymarket's `{history: [{t, p}]}` with every outcome's price beside `p`. Null when
 * there is no such market; 400 (from priceHistory) when the fidelity gives too many points.
 */
export async function getMarketHistory(db: Db, id: number, req: HistoryRequest, clockNow: Date) {
  const r = await sql<MarketReadRow>`select ${MARKET_COLUMNS} from markets m where m.id = ${id}`.execute(db);
  const row = r.rows[0];
  if (!row) return null;
  // A trade another instance dated past this one's clock has been made: the history runs to it.
  const now = marketTime(clockNow.getTime(), [row]);
  const outcome = req.outcome ?? 'yes';
  const openedAt = row.created_at.getTime();
  const win = req.window && windowOf(req.window, openedAt, now.getTime());
  const fidelity = req.fidelity ?? (win ? windowFidelity(Math.max(0, win.end - win.start)) : DEFAULT_FIDELITY[req.interval]);
  const opening = openingPricesOf(row);
  const query = { interval: req.interval, fidelity, now: win?.end ?? now.getTime(), openedAt, ...(win ? { from: win.start } : {}) };
  const outcomes = marketOutcomes(row.market_type);
  if (!outcomes.includes(outcome)) throw badRequest(`Invalid outcome: must be one of ${outcomes.join(', ')}`);
  // Refuses a too fine fidelity before reading any trade.
  priceHistory([], opening, query);
  // No trade precedes the market's opening, so the window's start needs no clamping here.
  const start = win ? win.start : req.interval === 'all' ? Math.min(query.now, query.openedAt) : query.now - CHANGE_WINDOWS[req.interval];
  const series = win && win.start > win.end ? [] : await sampledSeries(db, row, new Date(start), new Date(query.now), fidelity * 60_000);
  const perOutcome = outcomes.map((o) => priceHistory(series, opening, { ...query, outcome: o }));
  const main = priceHistory(series, opening, { ...query, outcome });
  const history: HistoryPoint[] = main.map((pt, i) => ({
    t: pt.t,
    p: pt.p,
    prices: Object.fromEntries(outcomes.map((o, k) => [o, perOutcome[k]![i]!.p])) as unknown as Prices,
  }));
  const shown = win ? { interval: 'custom', start_ts: Math.floor(win.start / 1000), end_ts: Math.floor(win.end / 1000) } : { interval: req.interval };
  return { market_id: row.id, market_type: row.market_type, outcome, ...shown, fidelity, history };
}

/**
 * The window sampled, in ms: from startTs (no earlier than the opening) to the end of second
 * endTs (no later than now). Its start may pass its end (a window before the opening or ahead of now): no points.
 */
function windowOf(w: NonNullable<HistoryRequest['window']>, openedAt: number, now: number): { start: number; end: number } {
  if (w.startTs !== undefined && w.endTs !== undefined && w.startTs > w.endTs) throw badRequest('Invalid startTs: must not be after endTs');
  const start = Math.max(openedAt, w.startTs === undefined ? openedAt : w.startTs * 1000);
  // endTs names a whole second (as the points' t do): the window runs to its last millisecond.
  const end = Math.min(now, w.endTs === undefined ? now : w.endTs * 1000 + 999);
  return { start, end };
}
