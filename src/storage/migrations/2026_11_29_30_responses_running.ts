import { sql, type Kysely, type Migration } from 'kysely';

/**
 * The stored responses still `in_progress` (a stream's row, written when it starts), by start
 * time: the pruning job finds those a stopped instance left behind without reading the table.
 */
export const responsesRunningMigration: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await sql`create index responses_running on responses (created_at) where body->>'status' = 'in_progress'`.execute(db);
  },
  async down(db: Kysely<unknown>): Promise<void> {
    await sql`drop index if exists responses_running`.execute(db);
  },
};
