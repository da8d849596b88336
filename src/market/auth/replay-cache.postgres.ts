import type { Clock } from '../../shared/clock.ts';
import type { Db } from '../../storage/database.ts';
import type { ReplayCache } from './replay-cache.ts';

/** How often one instance deletes expired rows (at most), on the way through a claim. */
const PRUNE_EVERY_MS = 60_000;

/**
 * `insert ... on conflict do nothing` on a primary key: the database decides which of two racing
 * claims wins. An expired row that was not pruned yet still counts as used; that costs nothing,
 * because a signature whose row has expired is outside its timestamp window anyway.
 */
export function createPostgresReplayCache(db: Db, clock: Clock): ReplayCache {
  let lastPrune = Number.NEGATIVE_INFINITY;
  return {
    kind: 'postgres',
    async claim(key, ttlMs) {
      const now = clock.now();
      if (now - lastPrune >= PRUNE_EVERY_MS) {
        lastPrune = now;
        await db.deleteFrom('used_signatures').where('expires_at', '<', new Date(now)).execute();
      }
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
