import { sql, type RawBuilder } from 'kysely';
import type { Db } from '../../storage/database.ts';
import type { EventStatus } from '../market.tables.ts';
import { formatUsdc } from '../pricing/index.ts';
import { type MarketItem } from './market-view.ts';
import { listMarkets } from './markets.list.ts';
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

// An event without an end date of its own ends with its last market.
const EVENT_SELECT = sql`select e.id, e.title, e.slug, e.description, e.category, e.image_url, e.status,
    coalesce(e.end_date, (select max(m.end_date) from markets m where m.event_id = e.id)) as end_date,
    e.created_at,
    (select count(*)::int from markets m where m.event_id = e.id) as markets_count,
    (select coalesce(sum(m.volume), 0)::bigint from markets m where m.event_id = e.id) as total_volume
  from events e`;

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

async function oneEvent(db: Db, where: RawBuilder<unknown>): Promise<EventItem | null> {
  const r = await sql<EventRow>`${EVENT_SELECT} where ${where} limit 1`.execute(db);
  return r.rows[0] ? eventItem(r.rows[0]) : null;
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

export async function getEventById(db: Db, id: number): Promise<EventItem | null> {
  return oneEvent(db, sql`e.id = ${id}`);
}

/** Its markets, most traded first. */
export async function withMarkets(db: Db, event: EventItem, now: Date): Promise<EventWithMarkets> {
  const { items } = await listMarkets(db, { event_id: event.id }, { sort: 'volume', offset: 0, limit: MAX_EVENT_MARKETS }, now);
  return { ...event, markets: items };
}

/**
 * An event by its numeric id or its slug: digits are tried as an id first, then as a slug (so a
 * numeric slug still resolves when no event has that id). Slugs are only ever stored lower case
 * (slugify), so the slug asked is lowered rather than the column: `Election-2028` finds
 * `election-2028` through the unique index on `slug`.
 */
export async function getEventBySlugOrId(db: Db, slugOrId: string, now: Date): Promise<EventWithMarkets | null> {
  let event: EventItem | null = null;
  if (/^[0-9]{1,9}$/.test(slugOrId)) event = await getEventById(db, Number(slugOrId));
  event ??= await oneEvent(db, sql`e.slug = ${slugOrId.toLowerCase()}`);
  return event ? withMarkets(db, event, now) : null;
}

/** The event an admin featured most recently, with its markets; null when none is. */
export async function getFeaturedEvent(db: Db, now: Date): Promise<EventWithMarkets | null> {
  const r = await sql<EventRow>`${EVENT_SELECT} where e.featured_at is not null
    order by e.featured_at desc, e.id desc limit 1`.execute(db);
  return r.rows[0] ? withMarkets(db, eventItem(r.rows[0]), now) : null;
}
