import { sql, type Kysely, type Migration } from 'kysely';

/** Market authentication: API keys of wallets, the signature replay cache, idempotency keys. */
export const marketAuthMigration: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .createTable('market_api_keys')
      .addColumn('id', 'bigint', (c) => c.primaryKey().generatedAlwaysAsIdentity())
      .addColumn('key', 'text', (c) => c.notNull().unique())
      .addColumn('wallet', 'text', (c) => c.notNull())
      .addColumn('secret_ciphertext', 'text', (c) => c.notNull())
      .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
      .addColumn('revoked_at', 'timestamptz')
      .addColumn('last_used_at', 'timestamptz')
      .execute();
    await db.schema.createIndex('market_api_keys_wallet_idx').on('market_api_keys').column('wallet').execute();

    await db.schema
      .createTable('used_signatures')
      .addColumn('key', 'text', (c) => c.primaryKey())
      .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('used_signatures_expires_at_idx').on('used_signatures').column('expires_at').execute();

    await db.schema
      .createTable('idempotency_keys')
      .addColumn('principal', 'text', (c) => c.notNull())
      .addColumn('route', 'text', (c) => c.notNull())
      .addColumn('key', 'text', (c) => c.notNull())
      .addColumn('request_sha256', 'text', (c) => c.notNull())
      .addColumn('response_status', 'integer')
      .addColumn('response_json', 'text')
      .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
      .addColumn('completed_at', 'timestamptz')
      .addPrimaryKeyConstraint('idempotency_keys_pkey', ['principal', 'route', 'key'])
      .execute();
    await db.schema.createIndex('idempotency_keys_created_at_idx').on('idempotency_keys').column('created_at').execute();
  },

  async down(db: Kysely<unknown>): Promise<void> {
    await db.schema.dropTable('idempotency_keys').execute();
    await db.schema.dropTable('used_signatures').execute();
    await db.schema.dropTable('market_api_keys').execute();
  },
};
