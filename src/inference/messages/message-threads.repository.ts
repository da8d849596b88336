import { sql } from 'kysely';
import type { Db } from '../../storage/database.ts';
import { judgeChain } from '../responses/judge-chain.ts';
import { storableId, storableJsonText } from '../responses/storable-text.ts';

/** One answered turn of a message thread (message-threads.tables.ts). */
export interface ThreadTurn {
  readonly id: string;
  readonly accountId: number;
  readonly parentId: string | null;
  readonly system: unknown;
  readonly tools: unknown;
  readonly messages: readonly unknown[];
  readonly createdAt: Date;
  readonly expiresAt: Date;
}

/**
 * The conversation a message id stands for: the thread's `system` and `tools` (undefined when the
 * creating turn gave none) and every message of its turns, oldest first. `missing`: no such turn
 * for this account, or it expired; `broken`: a turn it continues expired or was pruned.
 */
export type ThreadLookup =
  | { readonly kind: 'found'; readonly system: unknown; readonly tools: unknown; readonly messages: readonly unknown[] }
  | { readonly kind: 'missing' }
  | { readonly kind: 'broken' };

const json = (v: unknown): string | null => (v === undefined ? null : storableJsonText(JSON.stringify(v)));

export async function saveThreadTurn(db: Db, t: ThreadTurn): Promise<void> {
  await db
    .insertInto('message_threads')
    .values({
      id: t.id,
      account_id: t.accountId,
      parent_id: t.parentId,
      system: json(t.system),
      tools: json(t.tools),
      messages: json(t.messages)!,
      created_at: t.createdAt,
      expires_at: t.expiresAt,
    })
    .execute();
}

interface TurnRow {
  parent_id: string | null;
  system: unknown;
  tools: unknown;
  messages: unknown[];
  expires_at: Date;
  depth: number;
}

export async function loadThread(db: Db, accountId: number, id: string, now: Date): Promise<ThreadLookup> {
  if (!storableId(id)) return { kind: 'missing' };
  const { rows } = await sql<TurnRow>`
    with recursive chain as (
      select parent_id, system, tools, messages, expires_at, 0 as depth
        from message_threads where id = ${id} and account_id = ${accountId}
      union all
      select t.parent_id, t.system, t.tools, t.messages, t.expires_at, c.depth + 1
        from message_threads t join chain c on t.id = c.parent_id
       where t.account_id = ${accountId}
    )
    select * from chain order by depth desc`.execute(db);
  const state = judgeChain(rows, (r) => r.parent_id, now);
  if (state !== 'found') return { kind: state };
  const root = rows[0]!;
  return { kind: 'found', system: root.system ?? undefined, tools: root.tools ?? undefined, messages: rows.flatMap((r) => r.messages) };
}

/** Deletes expired thread turns, a batch at a time; returns how many. */
export async function pruneExpiredThreads(db: Db, now: Date, batch = 1000): Promise<number> {
  let total = 0;
  for (;;) {
    const deleted = await db
      .deleteFrom('message_threads')
      .where('id', 'in', (eb) => eb.selectFrom('message_threads').select('id').where('expires_at', '<=', now).limit(batch))
      .executeTakeFirst();
    const n = Number(deleted.numDeletedRows);
    total += n;
    if (n < batch) return total;
  }
}
