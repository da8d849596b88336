import type { Kysely } from 'kysely';
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

/** Whether an error is PostgreSQL's unique violation on a `<table>_slug_key` constraint. */
export function isSlugConflict(e: unknown): boolean {
  const err = e as { code?: unknown; constraint?: unknown; message?: unknown };
  if (err?.code !== '23505') return false;
  const where = `${String(err.constraint ?? '')} ${String(err.message ?? '')}`;
  return where.includes('slug');
}
