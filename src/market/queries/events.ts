import { sql, type RawBuilder } from 'kysely';
import type { Db } from '../../storage/database.ts';
import type { EventStatus } from '../market.tables.ts';
import { formatUsdc } from '../pricing/index.ts';
import { type MarketItem } from './market-view.ts';
import { listItem, listMarketsQuery } from './markets.list.ts';
import { statusIn } from './status-filter.ts';

/** Most markets shown under one event (an event is a handful of related markets). */
export const MAX_EVENT_MARKETS = 500;

interface EventRow {
  id: number;
  title: string;
  slug: string;
  description: string;
  category: string;
  image_url: string;
  status: EventStatus;
  end_date: Date | null;
  created_at: Date;
  markets_count: number;
  total_volume: bigint;
}

export interface EventItem {
  id: number;
  title: string;
  slug: string;
  description: string;
  category: string;
  image_url: string;
  status: string;
  /** ISO 8601; "" for an event with neither an end date nor markets (docs/decisions-market-reads.md). */
  end_date: string;
  created_at: string;
  markets_count: number;
  total_volume: number;
}

export interface EventWithMarkets extends EventItem {
  markets: MarketItem[];
}

const EVENT_FIELDS = ['id', 'title', 'slug', 'description', 'category', 'image_url', 'status', 'end_date', 'created_at', 'markets_count', 'total_volume'] as const;

/**
 * The event columns over `events e`, each named `<prefix><field>`: a prefix keeps them apart from
 * a market's columns where one statement reads both. An event without an end date of its own
 * ends with its last market.
 */
export function eventSelect(prefix = ''): RawBuilder<unknown> {
  const as = (field: (typeof EVENT_FIELDS)[number]) => sql.raw(`${prefix}${field}`);
  return sql`select e.id as ${as('id')}, e.title as ${as('title')}, e.slug as ${as('slug')}, e.description as ${as('description')},
    e.category as ${as('category')}, e.image_url as ${as('image_url')}, e.status as ${as('status')},
    coalesce(e.end_date, (select max(m.end_date) from markets m where m.event_id = e.id)) as ${as('end_date')},
    e.created_at as ${as('created_at')},
    (select count(*)::int from markets m where m.event_id = e.id) as ${as('markets_count')},
    (select coalesce(sum(m.volume), 0)::bigint from markets m where m.event_id = e.id) as ${as('total_volume')}
  from events e`;
}

const EVENT_SELECT = eventSelect();

/** The Event item of a row read with `eventSelect(prefix)`; null when its columns are null (no event). */
export function prefixedEventItem(row: Record<string, unknown>, prefix: string): EventItem | null {
  if (row[`${prefix}id`] === null || row[`${prefix}id`] === undefined) return null;
  return eventItem(Object.fromEntries(EVENT_FIELDS.map((f) => [f, row[`${prefix}${f}`]])) as unknown as EventRow);
}

export function eventItem(r: EventRow): EventItem {
  return {
    id: r.id,
    title: r.title,
    slug: r.slug,
    description: r.description,
    category: r.category,
    image_url: r.image_url,
    status: r.status,
    end_date: r.end_date ? r.end_date.toISOString() : '',
    created_at: r.created_at.toISOString(),
    markets_count: r.markets_count,
    total_volume: formatUsdc(r.total_volume),
  };
}

/**
 * Events, newest first, of the statuses asked (every one when absent, none when empty), after a
 * cursor event or not, with the number matching (the cursor aside, so it reads the same on every
 * page). `'cursor'` when the cursor names no event.
 */
export async function listEvents(db: Db, f: { statuses?: readonly EventStatus[]; cursor?: number; offset: number; limit: number }) {
  if (f.cursor !== undefined) {
    const c = await sql<{ id: number }>`select id from events where id = ${f.cursor}`.execute(db);
    if (!c.rows[0]) return 'cursor' as const;
  }
  const filter = f.statuses ? [statusIn('e.status', f.statuses)] : [];
  // The list's own order: the cursor's row is read in the query, so its time keeps the database's precision.
  const after = f.cursor === undefined ? [] : [sql`(e.created_at, e.id) < (select c.created_at, c.id from events c where c.id = ${f.cursor})`];
  const whereOf = (conds: readonly RawBuilder<unknown>[]) => (conds.length === 0 ? sql`` : sql`where ${sql.join(conds, sql` and `)}`);
  // One statement, so the page and its total are one reading (an event created or resolved
  // between two statements made them disagree).
  type PageRow = Omit<EventRow, 'id'> & { id: number | null; total_count: number };
  const r = await sql<PageRow>`select c.total_count, x.* from (select count(*)::int as total_count from events e ${whereOf(filter)}) c
    left join (${EVENT_SELECT} ${whereOf([...filter, ...after])} order by e.created_at desc, e.id desc limit ${f.limit} offset ${f.offset}) x on true
    order by x.created_at desc, x.id desc`.execute(db);
  const rows = r.rows.filter((row): row is PageRow & EventRow => row.id !== null);
  return { items: rows.map(eventItem), total: r.rows[0]?.total_count ?? 0 };
}

/**
 * The first event of `where order`, with its markets (most traded first), in one statement: read
 * apart, a trade, a new market or a settlement committing between the event and its markets made
 * `total_volume` differ from the markets' volumes, or `markets_count` from the markets listed.
 */
async function eventWithMarkets(db: Db, where: RawBuilder<unknown>, order: RawBuilder<unknown>, now: Date): Promise<EventWithMarkets | null> {
  const head = sql`${eventSelect('ev_')} where ${where} ${order} limit 1`;
  const r = await listMarketsQuery({ event_id: sql<number>`c.ev_id` }, { sort: 'volume', offset: 0, limit: MAX_EVENT_MARKETS }, now, head).execute(db);
  const first = r.rows[0];
  const event = first ? prefixedEventItem(first, 'ev_') : null;
  if (!event) return null;
  const markets = r.rows.filter((row) => row.id !== null).map((row) => listItem(row, now));
  return { ...event, markets };
}

/**
 * An event by its numeric id or its slug: digits are tried as an id first, then as a slug (so a
 * numeric slug still resolves when no event has that id). Slugs are only ever stored lower case
 * (slugify), so the slug asked is lowered rather than the column: `Election-2028` finds
 * `election-2028` through the unique index on `slug`.
 */
export async function getEventBySlugOrId(db: Db, slugOrId: string, now: Date): Promise<EventWithMarkets | null> {
  const slug = sql`e.slug = ${slugOrId.toLowerCase()}`;
  if (!/^[0-9]{1,9}$/.test(slugOrId)) return eventWithMarkets(db, slug, sql``, now);
  const id = Number(slugOrId);
  return eventWithMarkets(db, sql`(e.id = ${id} or ${slug})`, sql`order by e.id = ${id} desc`, now);
}

/** The event an admin featured most recently, with its markets; null when none is. */
export async function getFeaturedEvent(db: Db, now: Date): Promise<EventWithMarkets | null> {
  return eventWithMarkets(db, sql`e.featured_at is not null`, sql`order by e.featured_at desc, e.id desc`, now);
}
