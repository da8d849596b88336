import { sql } from 'kysely';
import type { Db } from '../../storage/database.ts';
import type { ConversationItem, OutputItem } from '../formats/openai-responses/response-items.ts';

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
  const head = rows.at(-1);
  if (!head || head.depth !== 0 || new Date(head.expires_at) <= now) return { kind: 'missing' };
  const start = rows[0]!;
  if (start.previous_response_id !== null || rows.some((r) => new Date(r.expires_at) <= now)) return { kind: 'broken' };
  return { kind: 'found', items: rows.flatMap((r) => [...r.input_items, ...r.output_items]) };
}

export async function loadResponse(db: Db, accountId: number, id: string, now: Date): Promise<StoredResponse | null> {
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

export async function saveResponse(db: Db, r: StoredResponse): Promise<void> {
  await db.transaction().execute(async (tx) => {
    await tx
      .insertInto('responses')
      .values({
        id: r.id,
        account_id: r.accountId,
        previous_response_id: r.previousResponseId,
        model: r.model,
        input_items: JSON.stringify(r.inputItems),
        output_items: JSON.stringify(r.outputItems),
        body: JSON.stringify(r.body),
        created_at: r.createdAt,
        expires_at: r.expiresAt,
      })
      .execute();
    const items = r.outputItems.filter((i) => typeof i.id === 'string' && i.id !== '');
    if (items.length > 0) {
      await tx
        .insertInto('response_items')
        .values(items.map((i) => ({ item_id: i.id!, response_id: r.id, account_id: r.accountId, item: JSON.stringify(i) })))
        .execute();
    }
  });
}

/** Output items of the account's live stored responses, by id (ids of other accounts are not found). */
export async function findItems(db: Db, accountId: number, ids: readonly string[], now: Date): Promise<Map<string, OutputItem>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .selectFrom('response_items')
    .innerJoin('responses', 'responses.id', 'response_items.response_id')
    .select(['response_items.item_id', 'response_items.item'])
    .where('response_items.account_id', '=', accountId)
    .where('response_items.item_id', 'in', [...ids])
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
