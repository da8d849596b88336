import { sql, type Kysely, type Migration } from 'kysely';

/**
 * A settled market, and a resolved event, is featured no more: settlement clears `featured_at`
 * from now on (src/market/settlement/settle.ts); this clears it on those settled before. Down
 * leaves the rows as they are (the old featuring of a settled market is not worth restoring).
 */
export const settledNotFeaturedMigration: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await sql`update markets set featured_at = null where featured_at is not null and status in ('resolved', 'cancelled')`.execute(db);
    await sql`update events set featured_at = null where featured_at is not null and status = 'resolved'`.execute(db);
  },
  async down(): Promise<void> {},
};
