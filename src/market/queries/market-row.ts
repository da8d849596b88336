import { sql, type RawBuilder } from 'kysely';
import type { MarketRow } from '../market.tables.ts';
import { POOL_COLUMNS } from '../markets/market-row-pools.ts';

/** The market columns every read shows (pools, seeds and totals included). */
const READ_COLUMNS = [
  ...POOL_COLUMNS,
  'id',
  'event_id',
  'slug',
  'title',
  'description',
  'category',
  'status',
  'image_url',
  'end_date',
  'featured_at',
  'outcome_labels',
  'shares_yes',
  'shares_no',
  'shares_draw',
  'volume',
  'trade_count',
  'last_trade_at',
  'resolved_outcome',
  'resolved_at',
  'cancelled_at',
  'created_at',
] as const;

/** A market as every read sees it: the table's row without its settlement and escrow columns. */
export type MarketReadRow = Readonly<Pick<MarketRow, (typeof READ_COLUMNS)[number]>>;

/** The prices one trade left behind: what price-at-time reads. */
export interface TradePrices {
  readonly at: Date;
  readonly yes: number;
  readonly no: number;
  readonly draw: number | null;
}

/** `m.<column>` for every MarketReadRow column, for a `select` list over `markets m`. */
export const MARKET_COLUMNS: RawBuilder<unknown> = selectList(READ_COLUMNS);

function selectList(columns: readonly string[]): RawBuilder<unknown> {
  return sql.raw(columns.map((c) => `m.${c}`).join(', '));
}

/** The columns a Market list item needs (fewer values to fetch and parse). */
const LIST_COLUMN_NAMES = [
  ...POOL_COLUMNS,
  'id',
  'title',
  'slug',
  'description',
  'category',
  'status',
  'image_url',
  'end_date',
  'volume',
  'last_trade_at',
  'created_at',
] as const satisfies readonly (typeof READ_COLUMNS)[number][];

/** A market as a Market list item reads it. */
export type ListColumns = Pick<MarketReadRow, (typeof LIST_COLUMN_NAMES)[number]>;

/** `m.<column>` for the ListColumns, for a `select` list over `markets m`. */
export const LIST_COLUMNS: RawBuilder<unknown> = selectList(LIST_COLUMN_NAMES);

/**
 * Trade `t` is of the last 24 hours: dated after now - 24h. Not bounded by now: another instance
 * whose clock runs ahead of this one's dates a trade it made a moment ago past this one's now.
 */
export function tradedInLastDay(now: Date): RawBuilder<boolean> {
  return sql<boolean>`t.created_at > ${new Date(now.getTime() - 86_400_000)}`;
}

/** Sum of the trade amounts of market `m` of the last 24 hours (tradedInLastDay), units (index-only scan). */
export function volume24hOf(now: Date): RawBuilder<bigint> {
  return sql<bigint>`(select coalesce(sum(t.amount), 0)::bigint from trades t
    where t.market_id = m.id and ${tradedInLastDay(now)})`;
}

/**
 * A lateral join of the last trade of market `m` at or before `t` under `alias`, exposing
 * `<alias>_at`, `<alias>_yes`, `<alias>_no`, `<alias>_draw` (all null when there is none).
 */
export function lastTradeJoin(alias: string, t: Date): RawBuilder<unknown> {
  const a = sql.raw(alias);
  return sql`left join lateral (
      select t.created_at as ${sql.raw(`${alias}_at`)}, t.price_yes_after as ${sql.raw(`${alias}_yes`)},
             t.price_no_after as ${sql.raw(`${alias}_no`)}, t.price_draw_after as ${sql.raw(`${alias}_draw`)}
      from trades t where t.market_id = m.id and t.created_at <= ${t}
      order by t.created_at desc, t.id desc limit 1
    ) ${a} on true`;
}

/** The `<alias>_*` columns of a lastTradeJoin, for the select list. */
export function lastTradeColumns(alias: string): RawBuilder<unknown> {
  return sql.raw(['at', 'yes', 'no', 'draw'].map((c) => `${alias}.${alias}_${c}`).join(', '));
}

/** Reads the columns of a lastTradeJoin back into TradePrices (null when no trade). */
export function tradePricesOf(row: object, alias: string): TradePrices | null {
  const r = row as Record<string, unknown>;
  const at = r[`${alias}_at`];
  if (!(at instanceof Date)) return null;
  return { at, yes: r[`${alias}_yes`] as number, no: r[`${alias}_no`] as number, draw: (r[`${alias}_draw`] as number | null) ?? null };
}

/** A market with its `volume_24h`. */
export interface MarketListRow extends MarketReadRow {
  readonly volume_24h: bigint;
}
