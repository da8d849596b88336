import { sql } from 'kysely';
import type { Db } from '../../storage/database.ts';
import type { Outcome } from '../market.tables.ts';
import { formatUsdc } from '../pricing/index.ts';

export interface TradeRecord {
  id: number;
  market_id: number;
  wallet: string;
  side: string;
  amount: number;
  price: number;
  shares: number;
  timestamp: string;
  tx_hash: string | null;
}

interface TradeRow {
  id: number;
  market_id: number;
  wallet: string;
  outcome: Outcome;
  amount: bigint;
  price: number;
  shares: bigint;
  created_at: Date;
}

function tradeRecord(r: TradeRow): TradeRecord {
  return {
    id: r.id,
    market_id: r.market_id,
    wallet: r.wallet,
    side: r.outcome.toUpperCase(),
    amount: formatUsdc(r.amount),
    price: r.price,
    shares: formatUsdc(r.shares),
    timestamp: r.created_at.toISOString(),
    // Pool trades move money inside the service's ledger, not on a chain.
    tx_hash: null,
  };
}

/**
 * Trades, newest first, of one market or of all. The total is the markets' trade_count (kept in
 * the trading transaction), which avoids counting a large table. Null when `market` is unknown.
 */
export async function listTrades(db: Db, f: { market?: number; page: number; limit: number }) {
  const offset = (f.page - 1) * f.limit;
  if (f.market !== undefined) {
    const m = await sql<{ trade_count: number }>`select trade_count from markets where id = ${f.market}`.execute(db);
    if (!m.rows[0]) return null;
    const rows = await sql<TradeRow>`select id, market_id, wallet, outcome, amount, price, shares, created_at from trades
      where market_id = ${f.market} order by created_at desc, id desc limit ${f.limit} offset ${offset}`.execute(db);
    return { items: rows.rows.map(tradeRecord), total: m.rows[0].trade_count };
  }
  const [rows, count] = await Promise.all([
    sql<TradeRow>`select id, market_id, wallet, outcome, amount, price, shares, created_at from trades
      order by created_at desc, id desc limit ${f.limit} offset ${offset}`.execute(db),
    sql<{ n: bigint }>`select coalesce(sum(trade_count), 0)::bigint as n from markets`.execute(db),
  ]);
  return { items: rows.rows.map(tradeRecord), total: Number(count.rows[0]?.n ?? 0n) };
}
