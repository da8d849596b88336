import type { BooksReport } from '../audit/audit-books.ts';
import type { EventRow } from '../events/events.admin.ts';
import type { MarketRow } from '../market.tables.ts';
import { outcomesOf, poolsOf } from '../markets/market-row-pools.ts';
import { formatUsdc, mapOutcomes, poolPrices } from '../pricing/index.ts';
import type { SettlementSummary } from '../settlement/settle.ts';

/** JSON shapes of the admin API: amounts in USDC numbers, times in ISO 8601. */

const iso = (d: Date | null): string | null => (d === null ? null : d.toISOString());

export function eventView(e: EventRow) {
  return {
    id: e.id,
    slug: e.slug,
    title: e.title,
    description: e.description,
    category: e.category,
    image_url: e.image_url,
    status: e.status,
    end_date: iso(e.end_date),
    featured: e.featured_at !== null,
    featured_at: iso(e.featured_at),
    created_at: iso(e.created_at),
  };
}

export function marketView(m: MarketRow) {
  const outcomes = outcomesOf(m);
  const pools = poolsOf(m);
  const settled = m.settled_paid !== null && m.settled_fee !== null && m.settled_dust !== null;
  return {
    id: m.id,
    event_id: m.event_id,
    slug: m.slug,
    title: m.title,
    description: m.description,
    category: m.category,
    market_type: m.market_type,
    status: m.status,
    image_url: m.image_url,
    end_date: iso(m.end_date),
    featured: m.featured_at !== null,
    featured_at: iso(m.featured_at),
    outcome_labels: m.outcome_labels,
    prices: poolPrices(pools),
    pools: mapOutcomes(outcomes, (o) => formatUsdc(pools[o]!.real)),
    seeds: mapOutcomes(outcomes, (o) => formatUsdc(pools[o]!.seed)),
    escrow: formatUsdc(m.escrow),
    volume: formatUsdc(m.volume),
    trade_count: m.trade_count,
    last_trade_at: iso(m.last_trade_at),
    resolved_outcome: m.resolved_outcome,
    resolved_at: iso(m.resolved_at),
    cancelled_at: iso(m.cancelled_at),
    settlement: settled
      ? {
          total: formatUsdc(m.settled_paid! + m.settled_fee! + m.settled_dust!),
          paid: formatUsdc(m.settled_paid!),
          fee: formatUsdc(m.settled_fee!),
          dust: formatUsdc(m.settled_dust!),
        }
      : null,
    created_at: iso(m.created_at),
    updated_at: iso(m.updated_at),
  };
}

/** The market after resolve/cancel, with what this settlement did. */
export function settledMarketView(m: MarketRow, s: SettlementSummary) {
  return {
    ...marketView(m),
    settlement: {
      mode: s.mode,
      outcome: s.outcome,
      total: formatUsdc(s.total),
      paid: formatUsdc(s.paid),
      fee: formatUsdc(s.fee),
      dust: formatUsdc(s.dust),
      positions: s.positions,
      positions_paid: s.positions_paid,
    },
  };
}

export function booksView(r: BooksReport) {
  const t = r.totals;
  return {
    balanced: r.balanced,
    problems: r.problems,
    totals: {
      wallets: formatUsdc(t.wallets),
      escrow: formatUsdc(t.escrow),
      fees: formatUsdc(t.fees),
      deposits: formatUsdc(t.deposits),
      withdrawals: formatUsdc(t.withdrawals),
      net_external: formatUsdc(t.net_external),
      movements: t.movements,
      entries: t.entries,
      wallets_count: t.wallets_count,
      markets_count: t.markets_count,
      settled_markets: t.settled_markets,
    },
  };
}
