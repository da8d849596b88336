import { sql } from 'kysely';
import type { Db } from '../../storage/database.ts';
import { CHANGE_WINDOWS, type ChangeWindow, formatUsdc, priceChange, priceChanges } from '../pricing/index.ts';
import { MARKET_COLUMNS, type MarketListRow, type MarketRow, lastTradeColumns, lastTradeJoin, tradePricesOf, volume24hOf } from './market-row.ts';
import { lastUpdated, openingPricesOf, priceFigures, sparseSeries } from './market-view.ts';

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
function commonPriceRecord(row: MarketRow, volume24h: bigint) {
  const f = priceFigures(row);
  return {
    market_id: row.id,
    yes_price: f.yes_price,
    no_price: f.no_price,
    ...(f.draw_price !== undefined ? { draw_price: f.draw_price } : {}),
    market_type: row.market_type,
    volume: formatUsdc(row.volume),
    volume_24h: formatUsdc(volume24h),
    liquidity: f.liquidity,
    spread: f.spread,
    status: row.status,
    last_updated: lastUpdated(row),
    best_bid: f.best_bid,
    best_ask: f.best_ask,
  };
}

const ALL_WINDOWS: readonly ChangeWindow[] = ['1h', '1d', '1w', '1m'];
const BATCH_WINDOWS: readonly ChangeWindow[] = ['1h', '1d', '1w'];

/** The Price record of one market (market-api.md), or null when there is no such market. */
export async function getMarketPrice(db: Db, id: number, now: Date) {
  const [row] = await marketsWithWindows(db, [id], ALL_WINDOWS, now);
  if (!row) return null;
  const series = sparseSeries(
    row,
    ALL_WINDOWS.map((w) => tradePricesOf(row, `w${w}`)),
  );
  const change = priceChanges(series, openingPricesOf(row), now.getTime());
  const { best_bid, best_ask, ...common } = commonPriceRecord(row, row.volume_24h);
  return { ...common, best_bid, best_ask, change };
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
  const series = sparseSeries(
    row,
    BATCH_WINDOWS.map((w) => tradePricesOf(row, `w${w}`)),
  );
  const opening = openingPricesOf(row);
  const at = now.getTime();
  const { best_bid: _bid, best_ask: _ask, ...common } = commonPriceRecord(row, row.volume_24h);
  return {
    ...common,
    price_change_1h: priceChange(series, opening, at, CHANGE_WINDOWS['1h']),
    price_change_1d: priceChange(series, opening, at, CHANGE_WINDOWS['1d']),
    price_change_1w: priceChange(series, opening, at, CHANGE_WINDOWS['1w']),
  };
}
