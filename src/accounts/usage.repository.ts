import type { Selectable } from 'kysely';
import type { Db } from '../storage/database.ts';
import type { UsageRecordsTable } from './accounts.tables.ts';

export type UsageRecord = Selectable<UsageRecordsTable>;

/** An account's usage records, newest first, `limit` at a time below `beforeId`. */
export async function listUsage(db: Db, accountId: number, page: { limit: number; beforeId?: bigint }): Promise<UsageRecord[]> {
  let q = db.selectFrom('usage_records').selectAll().where('account_id', '=', accountId);
  if (page.beforeId !== undefined) q = q.where('id', '<', page.beforeId);
  return q.orderBy('id', 'desc').limit(page.limit).execute();
}
