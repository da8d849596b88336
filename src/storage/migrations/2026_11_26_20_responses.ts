import { sql, type Kysely, type Migration } from 'kysely';

/**
 * Stored responses of /v1/responses: each keeps the input items it was given and the output items
 * it produced, the answer as sent (for GET by id), the response it continues and its owner; output items are also kept one per row by
 * id, for clients that refer to them (`item_reference`). Rows expire and are pruned; nothing
 * references a response from outside, so a chain loses its oldest links first.
 */
export const responsesMigration: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await sql`
      create table responses (
        id text primary key,
        account_id integer not null references accounts(id),
        previous_response_id text,
        model text not null,
        input_items jsonb not null,
        output_items jsonb not null,
        body jsonb not null,
        created_at timestamptz not null,
        expires_at timestamptz not null
      )`.execute(db);
    await sql`create index responses_expires on responses (expires_at)`.execute(db);
    await sql`
      create table response_items (
        item_id text primary key,
        response_id text not null references responses(id) on delete cascade,
        account_id integer not null,
        item jsonb not null
      )`.execute(db);
    await sql`create index response_items_response on response_items (response_id)`.execute(db);
  },
  async down(db: Kysely<unknown>): Promise<void> {
    await sql`drop table if exists response_items`.execute(db);
    await sql`drop table if exists responses`.execute(db);
  },
};
