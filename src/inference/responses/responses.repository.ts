import { sql } from 'kysely';
import { textArrayLiteral } from '../../storage/array-literal.ts';
import { PREPARED, type Db } from '../../storage/database.ts';
import type { ConversationItem, OutputItem } from '../formats/openai-responses/response-items.ts';
import { judgeChain } from './judge-chain.ts';
import { storableId, storableJsonText } from './storable-text.ts';

export interface StoredResponse {
  readonly id: string;
  readonly accountId: number;
  readonly previousResponseId: string | null;
  readonly model: string;
  readonly inputItems: readonly ConversationItem[];
  readonly outputItems: readonly OutputItem[];
  readonly body: Record<string, unknown>;
  readonly createdAt: Date;
  readonly expiresAt: Date;
  /**
   * This write ends a streamed response whose `in_progress` row was written when it started
   * (serve-response.ts): the row is updated, and only if it is still there (its owner may have
   * deleted it meanwhile). Otherwise the response is inserted.
   */
  readonly begun?: boolean;
}

/**
 * The conversation a response id stands for: every item of its chain, oldest first (each
 * response's input items, then its output items). `missing`: no such response for this account,
 * or it expired. `broken`: the response exists but a response it continues expired, was pruned or
 * was deleted. `running`: the response is still being streamed (it has no output yet).
 */
export type ChainLookup =
  | { readonly kind: 'found'; readonly items: readonly ConversationItem[] }
  | { readonly kind: 'missing' }
  | { readonly kind: 'broken' }
  | { readonly kind: 'running' };

interface ChainRow {
  id: string;
  previous_response_id: string | null;
  input_items: ConversationItem[];
  output_items: OutputItem[];
  expires_at: Date;
  depth: number;
  /** The response asked for is being streamed (only read for it: the ones it continues had ended). */
  running: boolean;
}

/** The account's chain ending at `id`, oldest first (depth 0 is `id`), live or not. */
async function chainRows(db: Db, accountId: number, id: string): Promise<ChainRow[]> {
  const { rows } = await sql<ChainRow>`
    with recursive chain as (
      select id, previous_response_id, input_items, output_items, expires_at, 0 as depth, body->>'status' = 'in_progress' as running
        from responses where id = ${id} and account_id = ${accountId}
      union all
      select r.id, r.previous_response_id, r.input_items, r.output_items, r.expires_at, c.depth + 1, false
        from responses r join chain c on r.id = c.previous_response_id
       where r.account_id = ${accountId}
    )
    select * from chain order by depth desc`.execute(db);
  return rows;
}

export async function loadChain(db: Db, accountId: number, id: string, now: Date): Promise<ChainLookup> {
  if (!storableId(id)) return { kind: 'missing' };
  const rows = await chainRows(db, accountId, id);
  const state = judgeChain(rows, (r) => r.previous_response_id, now);
  if (state !== 'found') return { kind: state };
  if (rows.at(-1)!.running) return { kind: 'running' };
  return { kind: 'found', items: rows.flatMap((r) => [...r.input_items, ...r.output_items]) };
}

/**
 * What a response was given, oldest first: the items of the responses it continues (their input,
 * then their output) and its own input; null when the account has no such live response. When an
 * earlier response expired or was deleted, only the links after it are there to list.
 */
export async function loadInputItems(db: Db, accountId: number, id: string, now: Date): Promise<ConversationItem[] | null> {
  if (!storableId(id)) return null;
  const rows = await chainRows(db, accountId, id);
  const head = rows.at(-1);
  if (!head || head.depth !== 0 || new Date(head.expires_at) <= now) return null;
  const live = rows.slice(rows.findLastIndex((r) => new Date(r.expires_at) <= now) + 1);
  return live.flatMap((r) => (r === head ? r.input_items : [...r.input_items, ...r.output_items]));
}

/** Deletes the account's live response `id` (its items go with it); false when there is none. */
export async function deleteResponse(db: Db, accountId: number, id: string, now: Date): Promise<boolean> {
  if (!storableId(id)) return false;
  const deleted = await db.deleteFrom('responses').where('id', '=', id).where('account_id', '=', accountId).where('expires_at', '>', now).executeTakeFirst();
  return Number(deleted.numDeletedRows) > 0;
}

export async function loadResponse(db: Db, accountId: number, id: string, now: Date): Promise<StoredResponse | null> {
  if (!storableId(id)) return null;
  const r = await db.selectFrom('responses').selectAll().where('id', '=', id).where('account_id', '=', accountId).executeTakeFirst();
  if (!r || new Date(r.expires_at) <= now) return null;
  return {
    id: r.id,
    accountId: r.account_id,
    previousResponseId: r.previous_response_id,
    model: r.model,
    inputItems: r.input_items,
    outputItems: r.output_items,
    body: r.body,
    createdAt: new Date(r.created_at),
    expiresAt: new Date(r.expires_at),
  };
}

/**
 * Stores responses, each with its output items that have an id (for `item_reference`), in one
 * statement whatever their number: the batch travels as one JSON document (one JSON.stringify, one
 * parameter), the responses rows come out of it with jsonb_to_recordset and the response_items
 * rows out of the inserted output_items, so the text never changes (a named prepared statement on
 * PostgreSQL) and the JSON columns hold what JSON.stringify of each value gives (jsonb keeps the
 * value, not the text), but for the text jsonb cannot hold, written as U+FFFD (storable-text.ts). All or nothing: one bad row fails the statement (the store then writes
 * the batch one by one, src/inference/responses/response-store.ts). A `begun` response updates
 * its in_progress row instead, if that row is still there (StoredResponse.begun).
 */
export async function saveResponses(db: Db, rs: readonly StoredResponse[]): Promise<void> {
  const rows = rs.map((r) => ({
    id: r.id,
    account_id: r.accountId,
    previous_response_id: r.previousResponseId,
    model: r.model,
    input_items: r.inputItems,
    output_items: r.outputItems,
    body: r.body,
    created_at: r.createdAt.toISOString(),
    expires_at: r.expiresAt.toISOString(),
    begun: r.begun === true,
  }));
  await sql`${PREPARED}
    with x as (
      select * from jsonb_to_recordset(${storableJsonText(JSON.stringify(rows))}::jsonb) as x(id text, account_id integer, previous_response_id text, model text,
        input_items jsonb, output_items jsonb, body jsonb, created_at timestamptz, expires_at timestamptz, begun boolean)
    ), ended as (
      -- The ids as an array the primary key looks up: joined to x alone, the planner of this
      -- prepared statement read the whole table for each write (a stored stream's end took
      -- tens of milliseconds once it held some thousands of responses).
      update responses r set output_items = x.output_items, body = x.body
        from x where r.id = any(${textArrayLiteral(rs.filter((r) => r.begun === true).map((r) => r.id))}::text[])
         and x.begun and r.id = x.id and r.account_id = x.account_id
      returning r.id, r.account_id, r.output_items
    ), inserted as (
      insert into responses (id, account_id, previous_response_id, model, input_items, output_items, body, created_at, expires_at)
      select id, account_id, previous_response_id, model, input_items, output_items, body, created_at, expires_at
        from x where not x.begun
      returning id, account_id, output_items
    ), saved as (
      select * from ended union all select * from inserted
    )
    insert into response_items (item_id, response_id, account_id, item)
    select item->>'id', saved.id, saved.account_id, item
      from saved cross join lateral jsonb_array_elements(saved.output_items) as item
     where jsonb_typeof(item->'id') = 'string' and item->>'id' <> ''`.execute(db);
}

/**
 * Items of the account's live stored responses, by id (ids of other accounts are not found): an
 * output item, else an input item (OpenAI resolves references to both), the newest response's when
 * a client sent the same id in several.
 */
export async function findItems(db: Db, accountId: number, ids: readonly string[], now: Date): Promise<Map<string, ConversationItem>> {
  const wanted = [...new Set(ids.filter(storableId))];
  if (wanted.length === 0) return new Map();
  const rows = await db
    .selectFrom('response_items')
    .innerJoin('responses', 'responses.id', 'response_items.response_id')
    .select(['response_items.item_id', 'response_items.item'])
    .where('response_items.account_id', '=', accountId)
    .where('response_items.item_id', 'in', wanted)
    .where('responses.expires_at', '>', now)
    .execute();
  const found = new Map<string, ConversationItem>(rows.map((r) => [r.item_id, r.item]));
  const rest = wanted.filter((id) => !found.has(id));
  if (rest.length === 0) return found;
  // Spelled as the index responses_input_item_ids is (migration 2026_11_29_42), so the planner uses it.
  const inputs = await sql<{ item: ConversationItem }>`
    select distinct on (item->>'id') item
      from responses cross join lateral jsonb_array_elements(input_items) as item
     where jsonb_path_query_array(input_items, '$[*].id') ?| ${textArrayLiteral(rest)}::text[]
       and account_id = ${accountId} and expires_at > ${now.toISOString()}
       and item->>'id' = any(${textArrayLiteral(rest)}::text[])
     order by item->>'id', created_at desc`.execute(db);
  for (const { item } of inputs.rows) found.set(item.id as string, item);
  return found;
}

/** Deletes expired responses (their items go with them), a batch at a time; returns how many. */
export async function pruneExpiredResponses(db: Db, now: Date, batch = 1000): Promise<number> {
  let total = 0;
  for (;;) {
    const deleted = await db
      .deleteFrom('responses')
      .where('id', 'in', (eb) => eb.selectFrom('responses').select('id').where('expires_at', '<=', now).limit(batch))
      .executeTakeFirst();
    const n = Number(deleted.numDeletedRows);
    total += n;
    if (n < batch) return total;
  }
}

/**
 * Deletes the `in_progress` rows of streams that started before `startedBefore`: an instance that
 * stopped mid-stream left them (a running stream updates its row when it ends, and a client that
 * leaves has it removed), and each would refuse continuing its conversation until it expired.
 * Removed as a left stream's row is: the response was never completed. Returns how many.
 */
export async function pruneAbandonedRunning(db: Db, startedBefore: Date): Promise<number> {
  const deleted = await db
    .deleteFrom('responses')
    // Spelled as the partial index responses_running is, so the planner uses it.
    .where(sql<boolean>`body->>'status' = 'in_progress'`)
    .where('created_at', '<', startedBefore)
    .executeTakeFirst();
  return Number(deleted.numDeletedRows);
}
