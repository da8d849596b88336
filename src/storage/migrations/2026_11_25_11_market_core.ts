import { sql, type Kysely } from 'kysely';

/**
 * Money core additions to the market schema:
 * - a deferred constraint trigger that refuses, at commit, any ledger movement whose rows do not
 *   sum to zero (the application checks first; this catches any code path that forgets);
 * - indexes used by settlement (markets of an event) and by the books check (entries of a market).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create function ledger_movement_balanced() returns trigger language plpgsql as $$
    declare
      total numeric;
    begin
      select coalesce(sum(amount), 0) into total from ledger_entries where movement_id = new.movement_id;
      if total <> 0 then
        raise exception 'ledger movement % does not sum to zero (%)', new.movement_id, total
          using errcode = '23514';
      end if;
      return null;
    end
    $$`.execute(db);
  await sql`
    create constraint trigger ledger_movement_balanced
      after insert or update on ledger_entries
      deferrable initially deferred
      for each row execute function ledger_movement_balanced()`.execute(db);
  await sql`create index markets_event on markets (event_id) where event_id is not null`.execute(db);
  await sql`create index ledger_market on ledger_entries (market_id) where market_id is not null`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index if exists ledger_market`.execute(db);
  await sql`drop index if exists markets_event`.execute(db);
  await sql`drop trigger if exists ledger_movement_balanced on ledger_entries`.execute(db);
  await sql`drop function if exists ledger_movement_balanced()`.execute(db);
}
