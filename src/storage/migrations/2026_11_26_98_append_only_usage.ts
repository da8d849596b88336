import { sql, type Kysely, type Migration } from 'kysely';

/**
 * The per-request rows of the gateway's charges (usage_records, and credit_ledger's rows that
 * point at them) lose their foreign keys. Each key was a per-row trigger running a query with a
 * row lock (four per charged request), which made up half of the charge batch's cost on the
 * embedded database (docs/bench-gateway.md, "Session 6"). What the keys guarded holds by
 * construction: these rows are written only by settleCharges (and grants by the admin paths),
 * inside the transaction that locked the account first; accounts, keys and usage records are
 * never deleted. The integrity query in docs/operations.md ("Credit books") finds an orphan
 * should one ever appear. The account indexes stay (usage and ledger are listed by account).
 */
const KEYS = [
  ['usage_records', 'usage_records_account_id_fkey', 'foreign key (account_id) references accounts(id)'],
  ['usage_records', 'usage_records_key_id_fkey', 'foreign key (key_id) references api_keys(id)'],
  ['credit_ledger', 'credit_ledger_account_id_fkey', 'foreign key (account_id) references accounts(id)'],
  ['credit_ledger', 'credit_ledger_usage_id_fkey', 'foreign key (usage_id) references usage_records(id)'],
] as const;

export const appendOnlyUsageMigration: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    for (const [table, name] of KEYS) await sql`alter table ${sql.id(table)} drop constraint if exists ${sql.id(name)}`.execute(db);
  },
  async down(db: Kysely<unknown>): Promise<void> {
    for (const [table, name, definition] of KEYS) await sql`alter table ${sql.id(table)} add constraint ${sql.id(name)} ${sql.raw(definition)}`.execute(db);
  },
};
