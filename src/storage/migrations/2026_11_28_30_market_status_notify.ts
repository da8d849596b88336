import { sql, type Kysely, type Migration } from 'kysely';

/**
 * A market's change of status (resolved, cancelled, opened) reaches every instance's stream
 * readers (docs/market-live.md), whoever made it: the admin API, a script, plain SQL. Sent on
 * `svc_market_change` (the channel every instance already listens on) as `s` + JSON of the
 * market's id, status, resolved outcome and the times of its settlement in ms; an instance that
 * does not read `s` only bumps its version. After `markets_notify` (triggers fire in name order),
 * so the market's `m<id>` arrives first. NOTIFY is transactional: sent at commit, never for a
 * rollback.
 */
export const marketStatusNotifyMigration: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await sql`
      create function market_status_notify() returns trigger language plpgsql as $$
      begin
        perform pg_notify('svc_market_change', 's' || json_build_object(
          'id', new.id, 'status', new.status, 'o', new.resolved_outcome,
          'r', floor(extract(epoch from new.resolved_at) * 1000)::bigint,
          'c', floor(extract(epoch from new.cancelled_at) * 1000)::bigint)::text);
        return null;
      end $$`.execute(db);
    await sql`
      create trigger markets_status_notify after update of status on markets for each row
      when (old.status is distinct from new.status) execute function market_status_notify()`.execute(db);
  },

  async down(db: Kysely<unknown>): Promise<void> {
    await sql`drop trigger if exists markets_status_notify on markets`.execute(db);
    await sql`drop function if exists market_status_notify()`.execute(db);
  },
};
