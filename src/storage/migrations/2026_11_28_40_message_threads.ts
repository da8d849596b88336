import { sql, type Kysely, type Migration } from 'kysely';

/**
 * Message threads (docs/messages.md, "Message threads"): the Anthropic SDK's server-held
 * conversations. One row per answered turn, keyed by the answer's `msg_` id: the turn's new
 * messages with the answer appended, and the turn it continues. The first turn of a thread also
 * keeps the thread's `system` and `tools`, which later turns take from it.
 */
export const messageThreadsMigration: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .createTable('message_threads')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('account_id', 'integer', (c) => c.notNull().references('accounts.id'))
      .addColumn('parent_id', 'text')
      .addColumn('system', 'jsonb')
      .addColumn('tools', 'jsonb')
      .addColumn('messages', 'jsonb', (c) => c.notNull())
      .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
      .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('message_threads_expires').on('message_threads').column('expires_at').execute();
  },
  async down(db: Kysely<unknown>): Promise<void> {
    await db.schema.dropTable('message_threads').execute();
  },
};
