import { sql } from 'kysely';
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
}

/**
 * The conversation a response id stands for: every item of its chain, oldest first (each
 * response's input items, then its output items). `missing`: no such response for this account,
 * or it expired. `broken`: the response exists but a response it continues expired or was pruned.
 */
export type ChainLookup =
  | { readonly kind: 'found'; readonly items: readonly ConversationItem[] }
  | { readonly kind: 'missing' }
  | { readonly kind: 'broken' };

interface ChainRow {
  id: string;
  previous_response_id: string | null;
  input_items: ConversationItem[];
  output_items: OutputItem[];
  expires_at: Date;
  depth: number;
}

export async function loadChain(db: Db, accountId: number, id: string, now: Date): Promise<ChainLookup> {
  if (!storableId(id)) return { kind: 'missing' };
  const { rows } = await sql<ChainRow>`
    with recursive chain as (
      select id, previous_response_id, input_items, output_items, expires_at, 0 as depth
        from responses where id = ${id} and account_id = ${accountId}
      union all
      select r.id, r.previous_response_id, r.input_items, r.output_items, r.expires_at, c.depth + 1
        from responses r join chain c on r.id = c.previous_response_id
       where r.account_id = ${accountId}
    )
    select * from chain order by depth desc`.execute(db);
  const state = judgeChain(rows, (r) => r.previous_response_id, now);
  if (state !== 'found') return { kind: state };
  return { kind: 'found', items: rows.flatMap((r) => [...r.input_items, ...r.output_items]) };
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
 * the batch one by one, src/inference/responses/response-store.ts).
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
  }));
  await sql`${PREPARED}
    with saved as (
      insert into responses (id, account_id, previous_response_id, model, input_items, output_items, body, created_at, expires_at)
      select id, account_id, previous_response_id, model, input_items, output_items, body, created_at, expires_at
        from jsonb_to_recordset(${storableJsonText(JSON.stringify(rows))}::jsonb) as x(id text, account_id integer, previous_response_id text, model text,
          input_items jsonb, output_items jsonb, body jsonb, created_at timestamptz, expires_at timestamptz)
      returning id, account_id, output_items
    )
    insert into response_items (item_id, response_id, account_id, item)
    select item->>'id', saved.id, saved.account_id, item
      from saved cross join lateral jsonb_array_elements(saved.output_items) as item
     where jsonb_typeof(item->'id') = 'string' and item->>'id' <> ''`.execute(db);
}

/** Output items of the account's live stored responses, by id (ids of other accounts are not found). */
export async function findItems(db: Db, accountId: number, ids: readonly string[], now: Date): Promise<Map<string, OutputItem>> {
  const wanted = ids.filter(storableId);
  if (wanted.length === 0) return new Map();
  const rows = await db
    .selectFrom('response_items')
    .innerJoin('responses', 'responses.id', 'response_items.response_id')
    .select(['response_items.item_id', 'response_items.item'])
    .where('response_items.account_id', '=', accountId)
    .where('response_items.item_id', 'in', wanted)
    .where('responses.expires_at', '>', now)
    .execute();
  return new Map(rows.map((r) => [r.item_id, r.item]));
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
