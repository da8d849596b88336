import { sql, type Kysely, type Migration } from 'kysely';

/**
 * Stored input items get ids (GET /v1/responses/{id}/input_items lists them by id, and `after`
 * names one): the service now stores every input item with an id (responses/input-item-ids.ts);
 * those stored before had none, or an empty one. Each gets an id of its type's prefix (the same as
 * INPUT_ITEM_ID_PREFIX) made from its response id and position, so running it twice changes nothing.
 * Only rows with an item lacking an id are written; responses expire, so there are at most a
 * retention period's worth.
 */
export const inputItemIdsMigration: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    // A missing id reads as null, which `not (... = ...)` would keep null: coalesced to "lacks".
    const lacksId = sql`not coalesce(jsonb_typeof(item->'id') = 'string' and item->>'id' <> '', false)`;
    await sql`
      update responses set input_items = (
        select coalesce(jsonb_agg(
                 case when ${lacksId}
                      then item || jsonb_build_object('id', (case item->>'type'
                             when 'message' then 'msg_' when 'function_call' then 'fc_' when 'function_call_output' then 'fco_'
                             when 'custom_tool_call' then 'ctc_' when 'custom_tool_call_output' then 'ctco_' when 'reasoning' then 'rs_'
                             when 'mcp_list_tools' then 'mcpl_' when 'mcp_call' then 'mcp_' when 'mcp_approval_request' then 'mcpr_'
                             when 'mcp_approval_response' then 'mcpa_' else 'item_' end) || substr(md5(responses.id || ':' || n), 1, 24))
                      else item end
                 order by n), '[]'::jsonb)
          from jsonb_array_elements(input_items) with ordinality as e(item, n))
       where exists (select 1 from jsonb_array_elements(input_items) as item where ${lacksId})`.execute(db);
  },
  async down(): Promise<void> {
    // The ids stay: items with ids are what the service stores.
  },
};
