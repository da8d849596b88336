import { sql, type Kysely, type Migration } from 'kysely';

/**
 * The secrets every instance on one database must share (the admin token, the key sealing stored
 * secrets): the value when the service generated it, or only a fingerprint when the operator
 * gives it in the environment.
 */
export const instanceSecretsMigration: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await sql`
      create table instance_secrets (
        name text primary key,
        value text,
        fingerprint text not null,
        created_at timestamptz not null default now()
      )`.execute(db);
  },
  async down(db: Kysely<unknown>): Promise<void> {
    await sql`drop table instance_secrets`.execute(db);
  },
};
