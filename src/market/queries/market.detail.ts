import { sql, type RawBuilder } from 'kysely';
import type { Db } from '../../storage/database.ts';
import { CHANGE_WINDOWS, formatUsdc, marketOutcomes, priceChange } from '../pricing/index.ts';
import { eventSelect, prefixedEventItem, type EventItem } from './events.ts';
import { MARKET_COLUMNS, type MarketListRow, lastTradeColumns, lastTradeJoin, tradePricesOf, volume24hOf } from './market-row.ts';
import { type MarketItem, figuresOf, lastUpdated, marketItem, outcomeLabel, sparseSeries } from './market-view.ts';

export interface OutcomeDetail {
  outcome: string;
  label: string;
  price: number;
  pool: number;
  seed: number;
  shares: number;
}

export interface MarketDetail extends MarketItem {
  best_bid: number;
  best_ask: number;
  outcomes: OutcomeDetail[];
  event_id: number | null;
  event: EventItem | null;
  featured: boolean;
  trade_count: number;
  last_trade_at: string | null;
  last_updated: string;
  resolved_outcome: string | null;
  resolved_at: string | null;
  cancelled_at: string | null;
}

type Row = MarketListRow & Record<string, unknown>;

/**
 * The market with its event (`ev_*` columns, null without one) in one statement: read apart, a
 * trade committing between them showed the event's `total_volume` past its markets' volumes.
 */
async function marketRow(db: Db, where: RawBuilder<unknown>, order: RawBuilder<unknown>, now: Date): Promise<Row | undefined> {
  const dayAgo = new Date(now.getTime() - CHANGE_WINDOWS['1d']);
  const r = await sql<Row>`
    select ${MARKET_COLUMNS}, ${volume24hOf(now)} as volume_24h, ${lastTradeColumns('d1')}, ev.*
    from (select * from markets m where ${where} ${order} limit 1) m ${lastTradeJoin('d1', dayAgo)}
    left join lateral (${eventSelect('ev_')} where e.id = m.event_id) ev on true`.execute(db);
  return r.rows[0];
}

function detailOf(row: Row, now: Date): MarketDetail {
  const f = figuresOf(row);
  const series = sparseSeries(row, f, [tradePricesOf(row, 'd1')]);
  const change = priceChange(series, f.opening, now.getTime(), CHANGE_WINDOWS['1d']);
  const { pools, prices } = f;
  const shares = { yes: row.shares_yes, no: row.shares_no, draw: row.shares_draw };
  const event = prefixedEventItem(row, 'ev_');
  return {
    ...marketItem(row, f, row.volume_24h, change),
    best_bid: f.depth.bestBid,
    best_ask: f.depth.bestAsk,
    outcomes: marketOutcomes(row.market_type).map((o) => ({
      outcome: o,
      label: outcomeLabel(row, o),
      price: prices[o]!,
      pool: formatUsdc(pools[o]!.real),
      seed: formatUsdc(pools[o]!.seed),
      shares: formatUsdc(shares[o]),
    })),
    event_id: row.event_id,
    event,
    featured: row.featured_at !== null,
    trade_count: row.trade_count,
    last_trade_at: row.last_trade_at ? row.last_trade_at.toISOString() : null,
    last_updated: lastUpdated(row),
    resolved_outcome: row.resolved_outcome,
    resolved_at: row.resolved_at ? row.resolved_at.toISOString() : null,
    cancelled_at: row.cancelled_at ? row.cancelled_at.toISOString() : null,
  };
}

/** GET /api/markets/:id: the market, its outcomes with pools, seeds and prices, and its event. */
export async function getMarketDetail(db: Db, id: number, now: Date): Promise<MarketDetail | null> {
  const row = await marketRow(db, sql`m.id = ${id}`, sql``, now);
  return row ? detailOf(row, now) : null;
}

/** The market an admin featured most recently (any status), in the detail shape; null when none. */
export async function getFeaturedMarket(db: Db, now: Date): Promise<MarketDetail | null> {
  const row = await marketRow(db, sql`m.featured_at is not null`, sql`order by m.featured_at desc, m.id desc`, now);
  return row ? detailOf(row, now) : null;
}

/** Every category with its number of markets (all statuses) and of active ones (from market_counts). */
export async function marketCategories(db: Db) {
  const r = await sql<{ category: string; count: number; active_count: number }>`
    select category, sum(n)::int as count, coalesce(sum(n) filter (where status = 'active'), 0)::int as active_count
    from market_counts group by category having sum(n) > 0 order by sum(n) desc, category asc`.execute(db);
  return r.rows;
}
