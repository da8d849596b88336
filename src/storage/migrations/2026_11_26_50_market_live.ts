import { sql, type Kysely, type Migration } from 'kysely';

/**
 * Change notifications of the market, so every instance keeps its live market state and its
 * stream current with the other instances' writes (and with writes made outside the app):
 * - `svc_market_trade`: one per trade row, its figures as JSON (what the stream and the read
 *   state need, so no instance has to read the trade back);
 * - `svc_market_change`: `m<id>` for every inserted or updated market row, `e<id>` for events.
 * NOTIFY is transactional: delivered at commit, in commit order, never for a rollback.
 */
export const marketLiveMigration: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await sql`
      create function market_trade_notify() returns trigger language plpgsql as $$
      begin
        perform pg_notify('svc_market_trade', json_build_object(
          'id', new.id, 'm', new.market_id, 'w', new.wallet, 'o', new.outcome, 'a', new.amount::text,
          's', new.shares::text, 'p', new.price, 'y', new.price_yes_after, 'n', new.price_no_after,
          'd', new.price_draw_after, 't', (extract(epoch from new.created_at) * 1000)::bigint)::text);
        return null;
      end $$`.execute(db);
    await sql`create trigger trades_notify after insert on trades for each row execute function market_trade_notify()`.execute(db);
    await sql`
      create function market_change_notify() returns trigger language plpgsql as $$
      begin
        perform pg_notify('svc_market_change', tg_argv[0] || new.id::text);
        return null;
      end $$`.execute(db);
    await sql`create trigger markets_notify after insert or update on markets for each row execute function market_change_notify('m')`.execute(db);
    await sql`create trigger events_notify after insert or update on events for each row execute function market_change_notify('e')`.execute(db);
  },

  async down(db: Kysely<unknown>): Promise<void> {
    await sql`drop trigger if exists events_notify on events`.execute(db);
    await sql`drop trigger if exists markets_notify on markets`.execute(db);
    await sql`drop trigger if exists trades_notify on trades`.execute(db);
    await sql`drop function if exists market_change_notify()`.execute(db);
    await sql`drop function if exists market_trade_notify()`.execute(db);
  },
};
