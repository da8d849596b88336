import { sql, type Kysely, type Migration } from 'kysely';

/**
 * The ids of each stored response's input items, indexed: an `item_reference` may name an earlier
 * input item (a user message, a tool output), as OpenAI resolves it, and is looked up here when no
 * output item has that id (responses.repository.ts, findItems). Only the ids are indexed, not the
 * items' text. The expression must stay spelled as findItems spells it for the planner to use it.
 */
export const responseInputItemRefsMigration: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await sql`create index responses_input_item_ids on responses using gin (jsonb_path_query_array(input_items, '$[*].id'))`.execute(db);
  },
  async down(db: Kysely<unknown>): Promise<void> {
    await sql`drop index if exists responses_input_item_ids`.execute(db);
  },
};
