import { sql, type Kysely, type Migration } from 'kysely';

/**
 * The fingerprints of shared secrets a re-seal replaced (src/storage/instance-secrets.ts): an
 * instance whose SECRETS_KEY is one of them, holding the recorded key only as a previous one, was
 * left on the old key by a rotation and must not start (it would seal with a key the others may
 * no longer hold).
 */
export const retiredSecretsMigration: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await sql`
      create table instance_secrets_retired (
        name text not null,
        fingerprint text not null,
        retired_at timestamptz not null default now(),
        primary key (name, fingerprint)
      )`.execute(db);
  },
  async down(db: Kysely<unknown>): Promise<void> {
    await sql`drop table instance_secrets_retired`.execute(db);
  },
};
