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

export interface TradeFilter {
  readonly market?: number;
  /** Lower case. */
  readonly wallet?: string;
  /** Trades at or after this instant. */
  readonly from?: Date;
  /** Trades before this instant. */
  readonly until?: Date;
  /** A trade id: only trades after it in the list's order (older), whatever arrived since. */
  readonly cursor?: number;
  readonly offset: number;
  readonly limit: number;
}

const TRADE_COLUMNS = sql`id, market_id, wallet, outcome, amount, price, shares, created_at`;

/**
 * Trades, newest first, of one market or of all, of one wallet (lower case) or of all, inside a
 * time window or not, after a cursor trade or not. The total of a market's or of every trade is
 * the markets' trade_count (kept in the trading transaction), which avoids counting a large
 * table; a wallet's trades or a window are counted on the index that serves them (wallet, market
 * or time, each with created_at). The total counts the filter, not what is left after the cursor,
 * so it reads the same on every page, and is read in the page's own statement (one snapshot). `'market'` when `market` is unknown, `'cursor'` when the
 * cursor names no trade.
 */
export async function listTrades(db: Db, f: TradeFilter) {
  if (f.market !== undefined) {
    const m = await sql<{ id: number }>`select id from markets where id = ${f.market}`.execute(db);
    if (!m.rows[0]) return 'market' as const;
  }
  if (f.cursor !== undefined) {
    const c = await sql<{ id: number }>`select id from trades where id = ${f.cursor}`.execute(db);
    if (!c.rows[0]) return 'cursor' as const;
  }
  const filters = [
    f.market === undefined ? null : sql`market_id = ${f.market}`,
    f.wallet === undefined ? null : sql`wallet = ${f.wallet}`,
    f.from === undefined ? null : sql`created_at >= ${f.from}`,
    f.until === undefined ? null : sql`created_at < ${f.until}`,
  ].filter((c) => c !== null);
  // The list's own order, (created_at, id) descending: the cursor's row is read in the query, so
  // its time keeps the database's precision.
  const after = f.cursor === undefined ? null : sql`(created_at, id) < (select created_at, id from trades where id = ${f.cursor})`;
  const whereOf = (conds: readonly ReturnType<typeof sql>[]) => (conds.length === 0 ? sql`` : sql`where ${sql.join(conds, sql` and `)}`);
  const where = whereOf(after === null ? filters : [...filters, after]);
  const total =
    filters.length === 0
      ? sql`(select coalesce(sum(trade_count), 0) from markets)`
      : filters.length === 1 && f.market !== undefined
        ? sql`(select trade_count from markets where id = ${f.market})`
        : sql`(select count(*) from trades ${whereOf(filters)})`;
  // One statement, so the page and its total are one reading: trades committed between two
  // statements showed a total that disagreed with the rows (0 rows, total 1).
  type PageRow = Omit<TradeRow, 'id'> & { id: number | null; total_count: bigint };
  const r = await sql<PageRow>`
    select c.total_count, x.* from (select ${total}::bigint as total_count) c
    left join (select ${TRADE_COLUMNS} from trades ${where} order by created_at desc, id desc limit ${f.limit} offset ${f.offset}) x on true
    order by x.created_at desc, x.id desc`.execute(db);
  const rows = r.rows.filter((row): row is PageRow & TradeRow => row.id !== null);
  return { items: rows.map(tradeRecord), total: Number(r.rows[0]?.total_count ?? 0n) };
}
