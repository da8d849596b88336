import { sql, type RawBuilder } from 'kysely';
import type { Db } from '../../storage/database.ts';
import type { MarketStatus } from '../market.tables.ts';
import type { MarketType } from '../pricing/index.ts';
import { CHANGE_WINDOWS, priceChange } from '../pricing/index.ts';
import { LIST_COLUMNS, type ListColumns, lastTradeColumns, lastTradeJoin, tradedInLastDay, tradePricesOf, volume24hOf } from './market-row.ts';
import { type MarketItem, figuresOf, marketItem, sparseSeries } from './market-view.ts';
import { marketMatchesTerms, searchTerms } from './search-terms.ts';
import { statusIn } from './status-filter.ts';

export const MARKET_SORTS = ['newest', 'volume', 'ending_soon', 'trending'] as const;
export type MarketSort = (typeof MARKET_SORTS)[number];

export interface MarketFilter {
  /** The statuses listed (every status when absent; none when empty). */
  readonly statuses?: readonly MarketStatus[];
  readonly category?: string;
  readonly market_type?: MarketType;
  /** Words matched as case-insensitive substrings (see search-terms.ts). */
  readonly q?: string;
  /** The markets of one event (not a public parameter); SQL naming it where one statement reads the event too. */
  readonly event_id?: number | RawBuilder<number>;
}

export interface MarketPage {
  readonly sort: MarketSort;
  /** Items skipped. */
  readonly offset: number;
  readonly limit: number;
  /** A market id: only the markets after it in the sort's order as it stands now (a keyset). */
  readonly cursor?: number;
}

/** The `where` of a market filter over `markets m`, and of any further conditions. */
export function marketWhere(f: MarketFilter, more: readonly RawBuilder<unknown>[] = []): RawBuilder<unknown> {
  const conds: RawBuilder<unknown>[] = [...more];
  if (f.statuses) conds.push(statusIn('m.status', f.statuses));
  if (f.category !== undefined) conds.push(sql`m.category = ${f.category}`);
  if (f.market_type) conds.push(sql`m.market_type = ${f.market_type}`);
  if (f.event_id !== undefined) conds.push(sql`m.event_id = ${f.event_id}`);
  const terms = f.q === undefined ? [] : searchTerms(f.q);
  if (terms.length > 0) conds.push(marketMatchesTerms(terms));
  return conds.length === 0 ? sql`` : sql`where ${sql.join(conds, sql` and `)}`;
}

/** Sum of trade amounts per market of the last 24 hours (tradedInLastDay); joined as `tv` for trending. */
function recentVolumeJoin(now: Date): RawBuilder<unknown> {
  return sql`left join (
      select t.market_id, sum(t.amount)::bigint as v from trades t
      where ${tradedInLastDay(now)} group by t.market_id
    ) tv on tv.market_id = m.id`;
}

/** A market of `markets <prefix>` that has yet to end: active or pending, its end_date ahead. */
function runningAt(m: RawBuilder<unknown>, now: Date): RawBuilder<boolean> {
  return sql<boolean>`(${m}.status in ('active', 'pending') and ${m}.end_date > ${now})`;
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
      // Running markets (open for trading or about to be, end still ahead) first, soonest end
      // first; then the rest, latest end first. A settled market has nothing left to end, whatever
      // its end_date says (docs/decisions-market-reads.md).
      return sql`order by (${runningAt(m, now)}) desc, case when ${runningAt(m, now)} then ${m}.end_date end asc,
        ${m}.end_date desc, ${m}.id asc`;
    case 'trending':
      return sql`order by ${volume24h ?? sql`${m}.volume_24h`} desc, ${m}.volume desc, ${m}.id desc`;
  }
}

/**
 * The cursor market's place in the sort, as `k` (one row, none when no market has the id): the
 * values its keyset compares, read in the query so the database's precision is kept.
 */
function cursorJoin(sort: MarketSort, cursor: number, now: Date): RawBuilder<unknown> {
  const v24 =
    sort === 'trending'
      ? sql`(select coalesce(sum(t.amount), 0)::bigint from trades t where t.market_id = c.id and ${tradedInLastDay(now)})`
      : sql`0::bigint`;
  return sql`cross join (select c.id, c.created_at, c.volume, c.end_date, ${runningAt(sql.raw('c'), now)} as running, ${v24} as v24
    from markets c where c.id = ${cursor}) k`;
}

/** The markets of `markets m` after the cursor market `k` in the order of `orderBy(sort)`. */
function afterCursor(sort: MarketSort, now: Date, volume24h: RawBuilder<unknown>): RawBuilder<unknown> {
  switch (sort) {
    case 'newest':
      return sql`(m.created_at, m.id) < (k.created_at, k.id)`;
    case 'volume':
      return sql`(m.volume, m.id) < (k.volume, k.id)`;
    case 'trending':
      return sql`(${volume24h}, m.volume, m.id) < (k.v24, k.volume, k.id)`;
    case 'ending_soon': {
      // Running markets by end date, then id, ascending; then the rest by end date descending,
      // then id ascending.
      const running = runningAt(sql.raw('m'), now);
      return sql`(case when k.running then not ${running} or (m.end_date, m.id) > (k.end_date, k.id)
        else not ${running} and (m.end_date < k.end_date or (m.end_date = k.end_date and m.id > k.id)) end)`;
    }
  }
}

type ListRow = ListColumns & { readonly volume_24h: bigint } & Record<string, unknown>;

/**
 * How many markets match: from the trigger-kept market_counts when the filter is only status,
 * category and type (a few rows), else by counting the matching markets.
 */
function totalOf(f: MarketFilter): RawBuilder<number> {
  const terms = f.q === undefined ? [] : searchTerms(f.q);
  if (terms.length > 0 || f.event_id !== undefined) return sql<number>`(select count(*)::int from markets m ${marketWhere(f)})`;
  const conds: RawBuilder<unknown>[] = [];
  if (f.statuses) conds.push(statusIn('c.status', f.statuses));
  if (f.category !== undefined) conds.push(sql`c.category = ${f.category}`);
  if (f.market_type) conds.push(sql`c.market_type = ${f.market_type}`);
  const where = conds.length === 0 ? sql`` : sql`where ${sql.join(conds, sql` and `)}`;
  return sql<number>`(select coalesce(sum(c.n), 0)::int from market_counts c ${where})`;
}

/**
 * The one statement of a list page: the total, then the page chosen first (on the sort's index),
 * then only its rows get their 24-hour volume and the price in force a day ago (index-only scans
 * of trades_market_time_cover). An empty page still yields one row (market columns null).
 * `head`, instead of the total, is a one-row select whose columns each row carries and the
 * filter may name as `c.<column>` (an event and its markets read at once); no row, no page.
 */
export function listMarketsQuery(
  filter: MarketFilter,
  page: MarketPage,
  now: Date,
  head?: RawBuilder<unknown>,
): RawBuilder<ListRow & { total_count: number }> {
  const { offset, cursor } = page;
  const dayAgo = new Date(now.getTime() - CHANGE_WINDOWS['1d']);
  const trending = page.sort === 'trending';
  const recent = sql`coalesce(tv.v, 0)`;
  const keyset = cursor === undefined ? null : { join: cursorJoin(page.sort, cursor, now), after: afterCursor(page.sort, now, recent) };
  const where = marketWhere(filter, keyset ? [keyset.after] : []);
  const k = keyset?.join ?? sql``;
  const inner = trending
    ? sql`select m.*, ${recent}::bigint as volume_24h from markets m ${recentVolumeJoin(now)} ${k} ${where}
        ${orderBy(page.sort, now, 'm', recent)} limit ${page.limit} offset ${offset}`
    : sql`select m.* from markets m ${k} ${where} ${orderBy(page.sort, now, 'm')} limit ${page.limit} offset ${offset}`;
  const volume = trending ? sql`m.volume_24h` : volume24hOf(now);
  return sql<ListRow & { total_count: number }>`
    select c.*, x.* from (${head ?? sql`select ${totalOf(filter)} as total_count`}) c
    left join ${head ? sql`lateral` : sql``} (
      select ${LIST_COLUMNS}, ${volume} as volume_24h, ${lastTradeColumns('d1')}
      from (${inner}) m ${lastTradeJoin('d1', dayAgo)}
    ) x on true
    ${orderBy(page.sort, now, 'x')}`;
}

/**
 * A page of the public list: `listMarkets`, or `'cursor'` when the cursor names no market (which
 * would otherwise be an empty page, as if the list had ended).
 */
export async function listMarketsPage(db: Db, filter: MarketFilter, page: MarketPage, now: Date): Promise<{ items: MarketItem[]; total: number } | 'cursor'> {
  if (page.cursor !== undefined) {
    const c = await sql<{ id: number }>`select id from markets where id = ${page.cursor}`.execute(db);
    if (!c.rows[0]) return 'cursor';
  }
  return listMarkets(db, filter, page, now);
}

/**
 * One page of Market items and the number matching the filter (the cursor aside, so it reads the
 * same on every page), in one round trip.
 */
export async function listMarkets(db: Db, filter: MarketFilter, page: MarketPage, now: Date): Promise<{ items: MarketItem[]; total: number }> {
  const r = await listMarketsQuery(filter, page, now).execute(db);
  const rows = r.rows.filter((row) => row.id !== null);
  return { items: rows.map((row) => listItem(row, now)), total: r.rows[0]?.total_count ?? 0 };
}

/** A market row with `volume_24h` and `d1_*` columns as a Market list item. */
export function listItem(r: ListRow, now: Date): MarketItem {
  const f = figuresOf(r);
  const series = sparseSeries(r, f, [tradePricesOf(r, 'd1')]);
  const change = priceChange(series, f.opening, now.getTime(), CHANGE_WINDOWS['1d']);
  return marketItem(r, f, r.volume_24h, change);
}
