import { sql, type Kysely, type Migration } from 'kysely';

/**
 * Append-only rows listed per owner newest first (an account's usage records and credit ledger, a
 * market account's ledger entries) were indexed `(owner, id desc)`. Every new row then lands at
 * the left end of its owner's range, which PostgreSQL splits half and half: the indexes grew to
 * about 1.8 times the size of `(owner, id)`, whose inserts land at the right end of the range and
 * split leaving full pages, and wrote more WAL per row (docs/bench-gateway.md, "Session 29").
 * The newest-first lists read the ascending index backwards, with the same plans.
 */
const INDEXES = [
  ['usage_records_account', 'usage_records', 'account_id'],
  ['credit_ledger_account', 'credit_ledger', 'account_id'],
  ['ledger_account', 'ledger_entries', 'account'],
] as const;

export const ascendingOwnerIndexesMigration: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    for (const [index, table, owner] of INDEXES) {
      await sql`drop index if exists ${sql.id(index)}`.execute(db);
      await sql`create index ${sql.id(index)} on ${sql.id(table)} (${sql.id(owner)}, id)`.execute(db);
    }
  },
  async down(db: Kysely<unknown>): Promise<void> {
    for (const [index, table, owner] of INDEXES) {
      await sql`drop index if exists ${sql.id(index)}`.execute(db);
      await sql`create index ${sql.id(index)} on ${sql.id(table)} (${sql.id(owner)}, id desc)`.execute(db);
    }
  },
};
