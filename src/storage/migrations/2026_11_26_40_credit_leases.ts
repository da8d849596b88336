import { sql, type Kysely } from 'kysely';

/**
 * Credit leases and the operator's cost (docs/decisions-accounts.md):
 * - a `credit_reservations` row is now an instance's lease on an account's balance: it names
 *   its instance, is renewed while that instance lives (the sweep releases the others) and may
 *   be spent down to zero;
 * - a request that cost more than it held pays what it held; the rest is an `operator_cost`
 *   ledger row pointing at the usage record, like the charge it offsets.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table credit_reservations add column instance_id text`.execute(db);
  await sql`alter table credit_reservations add column renewed_at timestamptz not null default now()`.execute(db);
  await sql`alter table credit_reservations drop constraint credit_reservations_amount_check`.execute(db);
  await sql`alter table credit_reservations add constraint credit_reservations_amount_check check (amount >= 0)`.execute(db);
  await sql`drop index credit_reservations_time`.execute(db);
  await sql`create index credit_reservations_renewed on credit_reservations (renewed_at)`.execute(db);
  await sql`create index credit_reservations_instance on credit_reservations (instance_id)`.execute(db);

  await sql`alter table credit_ledger drop constraint credit_ledger_kind_check`.execute(db);
  await sql`alter table credit_ledger drop constraint credit_ledger_check`.execute(db);
  await sql`
    alter table credit_ledger add constraint credit_ledger_kind_check
      check (kind in ('grant', 'charge', 'adjustment', 'operator_cost'))`.execute(db);
  await sql`
    alter table credit_ledger add constraint credit_ledger_usage_check
      check ((kind in ('charge', 'operator_cost')) = (usage_id is not null))`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`delete from credit_ledger where kind = 'operator_cost'`.execute(db);
  await sql`alter table credit_ledger drop constraint credit_ledger_usage_check`.execute(db);
  await sql`alter table credit_ledger drop constraint credit_ledger_kind_check`.execute(db);
  await sql`alter table credit_ledger add constraint credit_ledger_kind_check check (kind in ('grant', 'charge', 'adjustment'))`.execute(db);
  await sql`alter table credit_ledger add constraint credit_ledger_check check ((kind = 'charge') = (usage_id is not null))`.execute(db);
  await sql`delete from credit_reservations where amount = 0`.execute(db);
  await sql`alter table credit_reservations drop constraint credit_reservations_amount_check`.execute(db);
  await sql`alter table credit_reservations add constraint credit_reservations_amount_check check (amount > 0)`.execute(db);
  await sql`drop index credit_reservations_instance`.execute(db);
  await sql`drop index credit_reservations_renewed`.execute(db);
  await sql`create index credit_reservations_time on credit_reservations (created_at)`.execute(db);
  await sql`alter table credit_reservations drop column renewed_at`.execute(db);
  await sql`alter table credit_reservations drop column instance_id`.execute(db);
}
