import type { Kysely, Selectable } from 'kysely';
import type { Clock } from '../../shared/clock.ts';
import { badRequest, notFound } from '../../shared/errors.ts';
import type { Database } from '../../storage/schema.ts';
import type { EventsTable } from '../market.tables.ts';
import { inTransaction } from '../market-transaction.ts';
import { parseCategory, parseDescription, parseFutureEnd, parseImageUrl, parseTitle } from '../markets/market-fields.ts';
import { eventSlugBase } from '../slugs/event-slug.ts';
import { insertWithFreeSlug } from '../slugs/unique-slug.ts';
import { ADVISORY_LOCK, lockForTransaction } from '../../storage/advisory-locks.ts';

export type EventRow = Selectable<EventsTable>;

export interface CreateEventInput {
  readonly title: string;
  readonly description?: string;
  readonly category: string;
  /** ISO 8601 date-time; optional (an event may have no fixed end). */
  readonly end_date?: string | null;
  readonly image_url?: string;
}

export async function findEvent(db: Kysely<Database>, id: number): Promise<EventRow | undefined> {
  return db.selectFrom('events').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Creates an event with a unique slug made from its title (`title-2` when taken; eventSlugBase). */
export async function createEvent(db: Kysely<Database>, clock: Clock, input: CreateEventInput): Promise<EventRow> {
  const title = parseTitle(input.title);
  const now = new Date(clock.now());
  const values = {
    title,
    description: parseDescription(input.description),
    category: parseCategory(input.category),
    image_url: parseImageUrl(input.image_url),
    end_date: input.end_date == null ? null : parseFutureEnd(input.end_date, now),
    status: 'active' as const,
    created_at: now,
  };
  const base = eventSlugBase(title);
  return insertWithFreeSlug(db, 'events', base, (slug) => db.insertInto('events').values({ ...values, slug }).returningAll().executeTakeFirstOrThrow());
}

/** Makes this the one featured event (GET /api/events/featured). 404 `Event not found`; a resolved one is refused. */
export async function featureEvent(db: Kysely<Database>, clock: Clock, id: number): Promise<EventRow> {
  return inTransaction(db, async (trx) => {
    const now = new Date(clock.now());
    const event = await trx.selectFrom('events').select(['id', 'status']).where('id', '=', id).forUpdate().executeTakeFirst();
    if (!event) throw notFound('Event not found');
    if (event.status === 'resolved') throw badRequest('Event already resolved');
    await lockForTransaction(trx, ADVISORY_LOCK.featuredEvent);
    await trx.updateTable('events').set({ featured_at: null }).where('featured_at', 'is not', null).where('id', '<>', id).execute();
    return trx.updateTable('events').set({ featured_at: now }).where('id', '=', id).returningAll().executeTakeFirstOrThrow();
  });
}

/** Ends this event's featuring (DELETE /admin/events/:id/feature); one not featured is answered as it is. */
export async function unfeatureEvent(db: Kysely<Database>, id: number): Promise<EventRow> {
  const row = await db.updateTable('events').set({ featured_at: null }).where('id', '=', id).where('featured_at', 'is not', null).returningAll().executeTakeFirst();
  if (row) return row;
  const event = await db.selectFrom('events').selectAll().where('id', '=', id).executeTakeFirst();
  if (!event) throw notFound('Event not found');
  return event;
}
