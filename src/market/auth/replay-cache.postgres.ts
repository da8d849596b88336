import type { Clock } from '../../shared/clock.ts';
import type { Db } from '../../storage/database.ts';
import type { ReplayCache } from './replay-cache.ts';

/**
 * `insert ... on conflict do nothing` on a primary key: the database decides which of two racing
 * claims wins. An expired row that was not pruned yet still counts as used; that costs nothing,
 * because a signature whose row has expired is outside its timestamp window anyway. Expired rows
 * are deleted by the upkeep job (pruneUsedSignatures), not on the claim's path.
 */
export function createPostgresReplayCache(db: Db, clock: Clock): ReplayCache {
  return {
    kind: 'postgres',
    async claim(key, ttlMs) {
      const now = clock.now();
      const inserted = await db
        .insertInto('used_signatures')
        .values({ key, expires_at: new Date(now + ttlMs) })
        .onConflict((oc) => oc.column('key').doNothing())
        .returning('key')
        .executeTakeFirst();
      return inserted !== undefined;
    },
  };
}

/** Deletes the records of signatures whose window has passed; returns how many. */
export async function pruneUsedSignatures(db: Db, now: Date): Promise<number> {
  const r = await db.deleteFrom('used_signatures').where('expires_at', '<', now).executeTakeFirst();
  return Number(r.numDeletedRows);
}
