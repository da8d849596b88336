import { sql } from 'kysely';
import type { Db } from '../storage/database.ts';

/** One day's use of one model by an account. */
export interface DailyUsage {
  /** `YYYY-MM-DD` (UTC). */
  readonly day: string;
  readonly model: string;
  readonly requests: number;
  readonly inputTokens: number;
  readonly cachedInputTokens: number;
  readonly outputTokens: number;
  /** Images generated (billed per image, not per token). */
  readonly images: number;
  /** Micro-credits charged: the sum of the ledger's charges for these requests. */
  readonly cost: bigint;
}

export interface UsageRange {
  readonly from: Date;
  /** Exclusive. */
  readonly to: Date;
}

export async function dailyUsage(db: Db, accountId: number, range: UsageRange): Promise<DailyUsage[]> {
  const rows = await db
    .selectFrom('usage_records')
    .select([
      sql<string>`to_char(created_at at time zone 'UTC', 'YYYY-MM-DD')`.as('day'),
      'model',
      sql<string>`count(*)`.as('requests'),
      sql<string>`coalesce(sum(input_tokens), 0)`.as('input'),
      sql<string>`coalesce(sum(cached_input_tokens), 0)`.as('cached'),
      sql<string>`coalesce(sum(output_tokens), 0)`.as('output'),
      sql<string>`coalesce(sum(image_count), 0)`.as('images'),
      sql<string>`coalesce(sum(cost), 0)`.as('cost'),
    ])
    .where('account_id', '=', accountId)
    .where('created_at', '>=', range.from)
    .where('created_at', '<', range.to)
    .groupBy([sql`1`, 'model'])
    .orderBy(sql`1`)
    .orderBy('model')
    .execute();
  return rows.map((r) => ({
    day: r.day,
    model: r.model,
    requests: Number(r.requests),
    inputTokens: Number(r.input),
    cachedInputTokens: Number(r.cached),
    outputTokens: Number(r.output),
    images: Number(r.images),
    cost: BigInt(r.cost),
  }));
}

/** The account's requests in the range, newest first (no prompt or answer text is ever stored). */
export async function usageRows(db: Db, accountId: number, range: UsageRange, limit: number) {
  return db
    .selectFrom('usage_records')
    .select(['id', 'created_at', 'model', 'served_model', 'lane', 'endpoint', 'input_tokens', 'cached_input_tokens', 'output_tokens', 'image_count', 'cost', 'status', 'latency_ms'])
    .where('account_id', '=', accountId)
    .where('created_at', '>=', range.from)
    .where('created_at', '<', range.to)
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
}
