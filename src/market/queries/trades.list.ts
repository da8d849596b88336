import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import type { Db } from '../../storage/database.ts';
import type { Outcome } from '../pricing/index.ts';
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
  tx_hash: string;
}

/** The columns of a trade its record is made of; the stream builds one from a committed trade. */
export interface TradeRow {
  id: number;
  market_id: number;
  wallet: string;
  outcome: Outcome;
  amount: bigint;
  price: number;
  shares: bigint;
  created_at: Date;
}

/** The Trade record of the market API, as GET /api/trades lists it and the stream sends it. */
export function tradeRecord(r: TradeRow): TradeRecord {
  return {
    id: r.id,
    market_id: r.market_id,
    wallet: r.wallet,
    side: r.outcome.toUpperCase(),
    amount: formatUsdc(r.amount),
    price: r.price,
    shares: formatUsdc(r.shares),
    timestamp: r.created_at.toISOString(),
    tx_hash: tradeHash(r),
  };
}

/**
 * A trade's `tx_hash`: pool trades move money inside the service's ledger, not on a chain, so
 * this is the trade's own receipt, `0x` + sha256 of
 * `svc-trade v1 <id> <market id> <wallet> <side> <amount units> <shares units> <unix ms>` (side
 * lower case, amounts in micro-USDC), recomputable from the record. Never a chain transaction.
 */
export function tradeHash(r: Pick<TradeRow, 'id' | 'market_id' | 'wallet' | 'outcome' | 'amount' | 'shares' | 'created_at'>): string {
  const text = `svc-trade v1 ${r.id} ${r.market_id} ${r.wallet} ${r.outcome} ${r.amount} ${r.shares} ${r.created_at.getTime()}`;
  return '0x' + createHash('sha256').update(text).digest('hex');
}

/**
 * Trades, newest first, of one market or of all, and of one wallet (lower case) or of all. The
 * total without a wallet is the markets' trade_count (kept in the trading transaction), which
 * avoids counting a large table; a wallet's trades are counted on its index. Null when `market`
 * is unknown.
 */
export async function listTrades(db: Db, f: { market?: number; wallet?: string; offset: number; limit: number }) {
  const { offset } = f;
  if (f.wallet !== undefined) return listWalletTrades(db, { ...f, wallet: f.wallet });
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

async function listWalletTrades(db: Db, f: { market?: number; wallet: string; offset: number; limit: number }) {
  if (f.market !== undefined) {
    const m = await sql<{ id: number }>`select id from markets where id = ${f.market}`.execute(db);
    if (!m.rows[0]) return null;
  }
  const inMarket = f.market === undefined ? sql`` : sql`and market_id = ${f.market}`;
  const [rows, count] = await Promise.all([
    sql<TradeRow>`select id, market_id, wallet, outcome, amount, price, shares, created_at from trades
      where wallet = ${f.wallet} ${inMarket} order by created_at desc, id desc limit ${f.limit} offset ${f.offset}`.execute(db),
    sql<{ n: bigint }>`select count(*)::bigint as n from trades where wallet = ${f.wallet} ${inMarket}`.execute(db),
  ]);
  return { items: rows.rows.map(tradeRecord), total: Number(count.rows[0]?.n ?? 0n) };
}
