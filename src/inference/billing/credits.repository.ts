import { sql } from 'kysely';
import type { UsageSource } from '../../accounts/accounts.tables.ts';
import type { Db } from '../../storage/database.ts';

export interface HeldCredits {
  /** Null when nothing had to be held (a free request). */
  readonly id: bigint | null;
  readonly amount: bigint;
}

/**
 * Holds up to `estimate` micro-credits of the account's available balance (credits - reserved)
 * for one request, under the account's row lock, so concurrent requests never hold more than
 * the balance between them. Refused (null) when the available balance is <= 0 or below
 * `minimum`; when it covers the minimum but not the estimate, all of it is held.
 */
export async function holdCredits(
  db: Db,
  input: { accountId: number; estimate: bigint; minimum: bigint; requestId: string },
): Promise<HeldCredits | null> {
  return db.transaction().execute(async (trx) => {
    const a = await trx
      .selectFrom('accounts')
      .select(['credits', 'reserved'])
      .where('id', '=', input.accountId)
      .forUpdate()
      .executeTakeFirst();
    if (!a) return null;
    const available = a.credits - a.reserved;
    if (available <= 0n || available < input.minimum) return null;
    const amount = input.estimate < available ? input.estimate : available;
    if (amount <= 0n) return { id: null, amount: 0n };
    await trx
      .updateTable('accounts')
      .set({ reserved: sql<bigint>`reserved + ${amount}` })
      .where('id', '=', input.accountId)
      .execute();
    const r = await trx
      .insertInto('credit_reservations')
      .values({ account_id: input.accountId, amount, request_id: input.requestId })
      .returning('id')
      .executeTakeFirstOrThrow();
    return { id: r.id, amount };
  });
}

export interface UsageRecordInput {
  readonly accountId: number;
  readonly keyId: number | null;
  readonly model: string;
  readonly servedModel: string | null;
  readonly providerId: string | null;
  readonly upstreamModel: string | null;
  readonly endpoint: string;
  readonly inputTokens: number;
  readonly cachedInputTokens: number;
  readonly outputTokens: number;
  readonly imageCount: number;
  readonly cost: bigint;
  readonly latencyMs: number;
  readonly status: number;
  readonly usageSource: UsageSource | null;
  readonly requestId: string;
}

export interface SettledCharge {
  readonly usageId: bigint;
  readonly cost: bigint;
  /** The account's credits after the charge. */
  readonly credits: bigint;
}

/**
 * In one transaction: gives back what the request held, charges its cost, writes its usage
 * record and (for a non-zero cost) the ledger row that explains the balance change. A hold
 * already released by the stale sweep gives back nothing; the cost is charged all the same.
 */
export async function settleCharge(db: Db, reservationId: bigint | null, usage: UsageRecordInput): Promise<SettledCharge> {
  return db.transaction().execute(async (trx) => {
    let released = 0n;
    if (reservationId !== null) {
      const r = await trx.deleteFrom('credit_reservations').where('id', '=', reservationId).returning('amount').executeTakeFirst();
      released = r?.amount ?? 0n;
    }
    const a = await trx
      .updateTable('accounts')
      .set({
        credits: sql<bigint>`credits - ${usage.cost}`,
        reserved: sql<bigint>`reserved - ${released}`,
        updated_at: sql<Date>`now()`,
      })
      .where('id', '=', usage.accountId)
      .returning('credits')
      .executeTakeFirstOrThrow();
    const u = await trx
      .insertInto('usage_records')
      .values({
        account_id: usage.accountId,
        key_id: usage.keyId,
        model: usage.model,
        served_model: usage.servedModel,
        provider_id: usage.providerId,
        upstream_model: usage.upstreamModel,
        endpoint: usage.endpoint,
        input_tokens: usage.inputTokens,
        cached_input_tokens: usage.cachedInputTokens,
        output_tokens: usage.outputTokens,
        image_count: usage.imageCount,
        cost: usage.cost,
        latency_ms: usage.latencyMs,
        status: usage.status,
        usage_source: usage.usageSource,
        request_id: usage.requestId,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    if (usage.cost !== 0n) {
      await trx
        .insertInto('credit_ledger')
        .values({
          account_id: usage.accountId,
          amount: -usage.cost,
          kind: 'charge',
          balance_after: a.credits,
          usage_id: u.id,
          note: null,
        })
        .execute();
    }
    return { usageId: u.id, cost: usage.cost, credits: a.credits };
  });
}

/**
 * Releases holds older than `olderThanMs` (their instance died before settling), in one
 * statement, so several instances may sweep at once. Returns how many were released.
 */
export async function releaseStaleHolds(db: Db, olderThanMs: number): Promise<number> {
  const r = await sql<{ n: number }>`
    with gone as (
      delete from credit_reservations
      where created_at < now() - make_interval(secs => ${olderThanMs / 1000})
      returning account_id, amount
    ), per_account as (
      select account_id, sum(amount)::bigint as amount, count(*)::integer as n from gone group by account_id
    ), released as (
      update accounts a set reserved = a.reserved - p.amount
      from per_account p where a.id = p.account_id
      returning p.n
    )
    select coalesce(sum(n), 0)::integer as n from released`.execute(db);
  return r.rows[0]?.n ?? 0;
}
