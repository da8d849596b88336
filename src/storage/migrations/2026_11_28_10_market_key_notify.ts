import { sql, type Kysely, type Migration } from 'kysely';

/**
 * Revocations of market API keys reach every instance's cached key lookups the moment they
 * commit (src/market/auth/api-key.lookup.ts), whichever instance or tool revoked the key: before,
 * another instance went on accepting a revoked key until its cached lookup expired. Channel
 * `svc_market_key_change`, payload the public key id (`mk_...`, never the secret). NOTIFY is
 * transactional: delivered at commit, never for a rollback. The WHEN clause keeps the frequent
 * last_used_at updates silent.
 */
export const marketKeyNotifyMigration: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await sql`
      create function market_key_change_notify() returns trigger language plpgsql as $$
      begin
        if tg_op = 'DELETE' then
          perform pg_notify('svc_market_key_change', old.key);
        else
          perform pg_notify('svc_market_key_change', new.key);
        end if;
        return null;
      end $$`.execute(db);
    await sql`
      create trigger market_api_keys_revoke_notify after update of revoked_at on market_api_keys for each row
      when (old.revoked_at is distinct from new.revoked_at) execute function market_key_change_notify()`.execute(db);
    await sql`
      create trigger market_api_keys_delete_notify after delete on market_api_keys for each row
      execute function market_key_change_notify()`.execute(db);
  },

  async down(db: Kysely<unknown>): Promise<void> {
    await sql`drop trigger if exists market_api_keys_delete_notify on market_api_keys`.execute(db);
    await sql`drop trigger if exists market_api_keys_revoke_notify on market_api_keys`.execute(db);
    await sql`drop function if exists market_key_change_notify()`.execute(db);
  },
};
