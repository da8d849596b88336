import { sql } from 'kysely';
import type { Db } from '../../storage/database.ts';
import type { Outcome } from '../pricing/index.ts';
import {
  type PositionMark,
  type SettledMarketResult,
  type TraderSummary,
  markPosition,
  poolPrices,
  summarizeTrader,
} from '../pricing/index.ts';
import { MARKET_COLUMNS, type MarketReadRow } from './market-row.ts';
import { poolsOf } from '../markets/market-row-pools.ts';

/** A wallet's position with its market. */
export interface PositionRow {
  readonly outcome: Outcome;
  readonly position_shares: bigint;
  readonly cost_basis: bigint;
  readonly payout: bigint | null;
  readonly position_created_at: Date;
  readonly market: MarketReadRow;
}

/** Markets whose positions are still open: not yet resolved or cancelled. */
export const OPEN_STATUSES = ['active', 'pending'] as const;
const isOpen = (m: MarketReadRow): boolean => (OPEN_STATUSES as readonly string[]).includes(m.status);

export async function walletPositions(db: Db, wallet: string): Promise<PositionRow[]> {
  const r = await sql<MarketReadRow & { outcome: Outcome; position_shares: bigint; cost_basis: bigint; payout: bigint | null; position_created_at: Date }>`
    select ${MARKET_COLUMNS}, p.outcome, p.shares as position_shares, p.cost_basis, p.payout, p.created_at as position_created_at
    from positions p join markets m on m.id = p.market_id
    where p.wallet = ${wallet}
    order by p.created_at desc, p.market_id desc, p.outcome asc`.execute(db);
  return r.rows.map(({ outcome, position_shares, cost_basis, payout, position_created_at, ...market }) => ({
    outcome,
    position_shares,
    cost_basis,
    payout,
    position_created_at,
    market,
  }));
}

export interface OpenPosition {
  readonly row: PositionRow;
  readonly mark: PositionMark;
}

/** Positions on markets still open (with shares), marked at the outcome's current price. */
export function openPositions(rows: readonly PositionRow[]): OpenPosition[] {
  return rows
    .filter((r) => isOpen(r.market) && r.position_shares > 0n)
    .map((row) => {
      const price = poolPrices(poolsOf(row.market))[row.outcome];
      if (price === undefined) throw new Error(`position on ${row.outcome} of market ${row.market.id}, which has no such outcome`);
      return { row, mark: markPosition({ shares: row.position_shares, costBasis: row.cost_basis }, price) };
    });
}

/**
 * The wallet's result per settled (resolved or cancelled) market: stakes, what settlement paid
 * the positions on the winning outcome, and what came back as refunds (cancellation, or a
 * resolution nobody held the winner of, where every position's payout is its stake).
 */
export function settledResults(rows: readonly PositionRow[]): SettledMarketResult[] {
  const byMarket = new Map<number, { staked: bigint; settled: bigint; refunded: bigint }>();
  for (const r of rows) {
    if (isOpen(r.market)) continue;
    const acc = byMarket.get(r.market.id) ?? { staked: 0n, settled: 0n, refunded: 0n };
    const paid = r.payout ?? 0n;
    acc.staked += r.cost_basis;
    if (r.market.status === 'resolved' && r.outcome === r.market.resolved_outcome) acc.settled += paid;
    else acc.refunded += paid;
    byMarket.set(r.market.id, acc);
  }
  return [...byMarket.values()];
}

export interface WalletFigures {
  readonly open: OpenPosition[];
  readonly summary: TraderSummary;
  /** Sum of every stake the wallet placed, units. */
  readonly totalVolume: bigint;
  readonly marketsTraded: number;
}

export function walletFigures(rows: readonly PositionRow[]): WalletFigures {
  const open = openPositions(rows);
  return {
    open,
    summary: summarizeTrader(
      settledResults(rows),
      open.map((o) => o.mark),
    ),
    totalVolume: rows.reduce((s, r) => s + r.cost_basis, 0n),
    marketsTraded: new Set(rows.map((r) => r.market.id)).size,
  };
}
