import { sql } from 'kysely';
import type { Db } from '../../storage/database.ts';
import { CHANGE_WINDOWS, type ChangeWindow, formatUsdc, priceChange, priceChanges } from '../pricing/index.ts';
import { MARKET_COLUMNS, type MarketListRow, type MarketReadRow, lastTradeColumns, lastTradeJoin, tradePricesOf, volume24hOf } from './market-row.ts';
import { type MarketFigures, figuresOf, lastUpdated, priceFields, sparseSeries } from './market-view.ts';

type Row = MarketListRow & Record<string, unknown>;

/** Markets by id with volume_24h and the trade in force at the start of each given window. */
async function marketsWithWindows(db: Db, ids: readonly number[], windows: readonly ChangeWindow[], now: Date): Promise<Row[]> {
  const joins = windows.map((w) => lastTradeJoin(`w${w}`, new Date(now.getTime() - CHANGE_WINDOWS[w])));
  const columns = windows.map((w) => lastTradeColumns(`w${w}`));
  const r = await sql<Row>`
    select ${MARKET_COLUMNS}, ${volume24hOf(now)} as volume_24h, ${sql.join(columns)}
    from markets m ${sql.join(joins, sql` `)}
    where m.id = any(${sql.val(ids)}::int[])`.execute(db);
  return r.rows;
}

/** The figures the single and batch price records share. */
function commonPriceRecord(row: MarketReadRow, f: MarketFigures, volume24h: bigint) {
  return {
    market_id: row.id,
    ...priceFields(f),
    market_type: row.market_type,
    volume: formatUsdc(row.volume),
    volume_24h: formatUsdc(volume24h),
    liquidity: f.liquidity,
    spread: f.depth.spread,
    status: row.status,
    last_updated: lastUpdated(row),
  };
}

const ALL_WINDOWS: readonly ChangeWindow[] = ['1h', '1d', '1w', '1m'];
const BATCH_WINDOWS: readonly ChangeWindow[] = ['1h', '1d', '1w'];

/** The Price record of one market (the market API), or null when there is no such market. */
export async function getMarketPrice(db: Db, id: number, now: Date) {
  const [row] = await marketsWithWindows(db, [id], ALL_WINDOWS, now);
  if (!row) return null;
  const f = figuresOf(row);
  const series = sparseSeries(
    row,
    f,
    ALL_WINDOWS.map((w) => tradePricesOf(row, `w${w}`)),
  );
  const change = priceChanges(series, f.opening, now.getTime());
  return { ...commonPriceRecord(row, f, row.volume_24h), best_bid: f.depth.bestBid, best_ask: f.depth.bestAsk, change };
}

/**
 * Batch price records keyed by market id (as a string, the JSON object key); ids of markets that
 * do not exist are left out.
 */
export async function getMarketPrices(db: Db, ids: readonly number[], now: Date) {
  const rows = await marketsWithWindows(db, ids, BATCH_WINDOWS, now);
  const out: Record<string, ReturnType<typeof batchRecord>> = {};
  for (const id of ids) {
    const row = rows.find((r) => r.id === id);
    if (row) out[String(id)] = batchRecord(row, now);
  }
  return out;
}

function batchRecord(row: Row, now: Date) {
  const f = figuresOf(row);
  const series = sparseSeries(
    row,
    f,
    BATCH_WINDOWS.map((w) => tradePricesOf(row, `w${w}`)),
  );
  const opening = f.opening;
  const at = now.getTime();
  return {
    ...commonPriceRecord(row, f, row.volume_24h),
    price_change_1h: priceChange(series, opening, at, CHANGE_WINDOWS['1h']),
    price_change_1d: priceChange(series, opening, at, CHANGE_WINDOWS['1d']),
    price_change_1w: priceChange(series, opening, at, CHANGE_WINDOWS['1w']),
  };
}
