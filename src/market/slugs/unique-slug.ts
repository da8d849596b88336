import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import { conflict } from '../../shared/errors.ts';
import type { Database } from '../../storage/schema.ts';
import { nextFreeSlug } from './slugify.ts';

/** A slug of `table` not yet used: `base`, else `base-2`, `base-3`, ... */
export async function freeSlug(db: Kysely<Database>, table: 'events' | 'markets', base: string): Promise<string> {
  const rows = await db
    .selectFrom(table)
    .select('slug')
    .where((eb) => eb.or([eb('slug', '=', base), eb('slug', 'like', `${base}-%`)]))
    .execute();
  return nextFreeSlug(base, rows.map((r) => r.slug));
}

/** Look-ups of the next number before the suffix turns random. */
const COUNTED_ATTEMPTS = 3;
const ATTEMPTS = 10;

/**
 * Inserts a row under a slug of `table` made from `base`: `base`, else the first free `base-N`.
 * Creators racing for the same title all see the same free number, and only one insert wins
 * each round, so after a few rounds the suffix is random (`base-3f9a1c`), which two creators do
 * not pick alike; if even that keeps colliding, 409 rather than the unique index's error.
 */
export async function insertWithFreeSlug<T>(
  db: Kysely<Database>,
  table: 'events' | 'markets',
  base: string,
  insert: (slug: string) => Promise<T>,
): Promise<T> {
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const slug = attempt < COUNTED_ATTEMPTS ? await freeSlug(db, table, base) : `${base}-${randomBytes(3).toString('hex')}`;
    try {
      return await insert(slug);
    } catch (e) {
      // Another creator took the same slug between the look-up and the insert: look again.
      if (!isSlugConflict(e)) throw e;
    }
  }
  throw conflict('slug taken by a concurrent create; try again');
}

/** Whether an error is PostgreSQL's unique violation on a `<table>_slug_key` constraint. */
export function isSlugConflict(e: unknown): boolean {
  const err = e as { code?: unknown; constraint?: unknown; message?: unknown };
  if (err?.code !== '23505') return false;
  const where = `${String(err.constraint ?? '')} ${String(err.message ?? '')}`;
  return where.includes('slug');
}
