import { sql, type RawBuilder } from 'kysely';
import type { Db } from '../../storage/database.ts';
import type { MarketStatus, MarketType } from '../market.tables.ts';
import { CHANGE_WINDOWS, priceChange } from '../pricing/index.ts';
import { MARKET_COLUMNS, type MarketListRow, lastTradeColumns, lastTradeJoin, tradePricesOf } from './market-row.ts';
import { type MarketItem, marketItem, openingPricesOf, sparseSeries } from './market-view.ts';
import { marketMatchesTerms, searchTerms } from './search-terms.ts';

export const MARKET_SORTS = ['newest', 'volume', 'ending_soon', 'trending'] as const;
export type MarketSort = (typeof MARKET_SORTS)[number];

export interface MarketFilter {
  readonly status?: MarketStatus;
  readonly category?: string;
  readonly market_type?: MarketType;
  /** Words matched as case-insensitive substrings (see search-terms.ts). */
  readonly q?: string;
  /** The markets of one event (not a public parameter). */
  readonly event_id?: number;
}

export interface MarketPage {
  readonly sort: MarketSort;
  readonly page: number;
  readonly limit: number;
}

/** The `where` of a market filter over `markets m`. */
export function marketWhere(f: MarketFilter): RawBuilder<unknown> {
  const conds: RawBuilder<unknown>[] = [];
  if (f.status) conds.push(sql`m.status = ${f.status}`);
  if (f.category !== undefined) conds.push(sql`m.category = ${f.category}`);
  if (f.market_type) conds.push(sql`m.market_type = ${f.market_type}`);
  if (f.event_id !== undefined) conds.push(sql`m.event_id = ${f.event_id}`);
  const terms = f.q === undefined ? [] : searchTerms(f.q);
  if (terms.length > 0) conds.push(marketMatchesTerms(terms));
  return conds.length === 0 ? sql`` : sql`where ${sql.join(conds, sql` and `)}`;
}

/** Sum of trade amounts per market over (now - 24h, now]; joined as `tv` for trending. */
function recentVolumeJoin(now: Date): RawBuilder<unknown> {
  const since = new Date(now.getTime() - 86_400_000);
  return sql`left join (
      select t.market_id, sum(t.amount)::bigint as v from trades t
      where t.created_at > ${since} and t.created_at <= ${now} group by t.market_id
    ) tv on tv.market_id = m.id`;
}

/** The order of a sort over `markets <prefix>`; `volume24h` is trending's 24-hour volume expression. */
function orderBy(sort: MarketSort, now: Date, prefix: string, volume24h?: RawBuilder<unknown>): RawBuilder<unknown> {
  const m = sql.raw(prefix);
  switch (sort) {
    case 'newest':
      return sql`order by ${m}.created_at desc, ${m}.id desc`;
    case 'volume':
      return sql`order by ${m}.volume desc, ${m}.id desc`;
    case 'ending_soon':
      // Still-running markets first, soonest end first; then ended ones, latest end first.
      return sql`order by (${m}.end_date <= ${now}), case when ${m}.end_date > ${now} then ${m}.end_date end asc,
        ${m}.end_date desc, ${m}.id asc`;
    case 'trending':
      return sql`order by ${volume24h ?? sql`${m}.volume_24h`} desc, ${m}.volume desc, ${m}.id desc`;
  }
}

type ListRow = MarketListRow & Record<string, unknown>;

/**
 * One page of markets and the number matching the filter. The page is chosen first (on the
 * sort's index), then only its rows get their 24-hour volume and the price in force a day ago.
 */
export async function listMarkets(db: Db, filter: MarketFilter, page: MarketPage, now: Date): Promise<{ items: MarketItem[]; total: number }> {
  const where = marketWhere(filter);
  const offset = (page.page - 1) * page.limit;
  const dayAgo = new Date(now.getTime() - CHANGE_WINDOWS['1d']);
  const trending = page.sort === 'trending';
  const inner = trending
    ? sql`select m.*, coalesce(tv.v, 0)::bigint as volume_24h from markets m ${recentVolumeJoin(now)} ${where}
        ${orderBy(page.sort, now, 'm', sql`coalesce(tv.v, 0)`)} limit ${page.limit} offset ${offset}`
    : sql`select m.* from markets m ${where} ${orderBy(page.sort, now, 'm')} limit ${page.limit} offset ${offset}`;
  const volume = trending
    ? sql`m.volume_24h`
    : sql`(select coalesce(sum(t.amount), 0)::bigint from trades t
        where t.market_id = m.id and t.created_at > ${new Date(now.getTime() - 86_400_000)} and t.created_at <= ${now})`;
  const rowsQuery = sql<ListRow>`
    select ${MARKET_COLUMNS}, ${volume} as volume_24h, ${lastTradeColumns('d1')}
    from (${inner}) m ${lastTradeJoin('d1', dayAgo)}
    ${orderBy(page.sort, now, 'm')}`;
  const countQuery = sql<{ n: number }>`select count(*)::int as n from markets m ${where}`;
  const [rows, count] = await Promise.all([rowsQuery.execute(db), countQuery.execute(db)]);
  return { items: rows.rows.map((r) => listItem(r, now)), total: count.rows[0]?.n ?? 0 };
}

/** A market row with `volume_24h` and `d1_*` columns as a Market list item. */
export function listItem(r: ListRow, now: Date): MarketItem {
  const series = sparseSeries(r, [tradePricesOf(r, 'd1')]);
  const change = priceChange(series, openingPricesOf(r), now.getTime(), CHANGE_WINDOWS['1d']);
  return marketItem(r, r.volume_24h, change);
}
