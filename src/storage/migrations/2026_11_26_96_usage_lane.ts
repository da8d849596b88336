import { sql, type Kysely, type Migration } from 'kysely';

/** The lane a pipeline or svc-auto request was classified into, shown on usage (null otherwise). */
export const usageLaneMigration: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await sql`alter table usage_records add column lane text`.execute(db);
  },
  async down(db: Kysely<unknown>): Promise<void> {
    await sql`alter table usage_records drop column lane`.execute(db);
  },
};
