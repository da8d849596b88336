import { sql, type Kysely, type Migration } from 'kysely';

/**
 * Change notifications of inference keys, so every instance drops a cached key lookup the
 * moment it stops being true (src/accounts/api-key.service.ts), whichever instance or tool
 * made the change. Channel `svc_api_key_change`: `k<id>` when a key is revoked (or un-revoked,
 * or deleted), `a<id>` when an account's email_verified changes. NOTIFY is transactional:
 * delivered at commit, in commit order, never for a rollback. The WHEN clauses keep the
 * frequent last_used_at and balance updates silent.
 */
export const apiKeyNotifyMigration: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await sql`
      create function api_key_change_notify() returns trigger language plpgsql as $$
      begin
        if tg_op = 'DELETE' then
          perform pg_notify('svc_api_key_change', tg_argv[0] || old.id::text);
        else
          perform pg_notify('svc_api_key_change', tg_argv[0] || new.id::text);
        end if;
        return null;
      end $$`.execute(db);
    await sql`
      create trigger api_keys_revoke_notify after update of revoked_at on api_keys for each row
      when (old.revoked_at is distinct from new.revoked_at) execute function api_key_change_notify('k')`.execute(db);
    await sql`
      create trigger api_keys_delete_notify after delete on api_keys for each row
      execute function api_key_change_notify('k')`.execute(db);
    await sql`
      create trigger accounts_verified_notify after update of email_verified on accounts for each row
      when (old.email_verified is distinct from new.email_verified) execute function api_key_change_notify('a')`.execute(db);
  },

  async down(db: Kysely<unknown>): Promise<void> {
    await sql`drop trigger if exists accounts_verified_notify on accounts`.execute(db);
    await sql`drop trigger if exists api_keys_delete_notify on api_keys`.execute(db);
    await sql`drop trigger if exists api_keys_revoke_notify on api_keys`.execute(db);
    await sql`drop function if exists api_key_change_notify()`.execute(db);
  },
};
