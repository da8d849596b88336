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
 *
 * One statement (lock, read, update and insert in data-modifying CTEs): every request runs it,
 * and on the embedded database each statement is CPU time of the gateway's own thread. The
 * `for update` read returns the latest committed row once the lock is granted (read committed),
 * so the amount is computed from the balance no concurrent hold can change any more.
 */
export async function holdCredits(
  db: Db,
  input: { accountId: number; estimate: bigint; minimum: bigint; requestId: string },
): Promise<HeldCredits | null> {
  const r = await sql<{ found: boolean; amount: bigint | null; id: bigint | null }>`
    with acct as (
      select id, credits - reserved as available from accounts where id = ${input.accountId} for update
    ), held as (
      select id, least(${input.estimate}::bigint, available) as amount from acct
      where available > 0 and available >= ${input.minimum}::bigint
    ), reserved as (
      update accounts a set reserved = a.reserved + h.amount from held h where a.id = h.id and h.amount > 0
      returning h.amount
    ), hold as (
      insert into credit_reservations (account_id, amount, request_id)
      select ${input.accountId}, amount, ${input.requestId} from reserved
      returning id
    )
    select exists (select 1 from acct) as found, (select amount from held) as amount, (select id from hold) as id`.execute(db);
  const row = r.rows[0];
  if (!row?.found || row.amount === null) return null;
  if (row.amount <= 0n) return { id: null, amount: 0n };
  return { id: row.id, amount: row.amount };
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
 * Atomically (one statement): gives back what the request held, charges its cost, writes its
 * usage record and (for a non-zero cost) the ledger row that explains the balance change. A hold
 * already released by the stale sweep gives back nothing; the cost is charged all the same.
 */
export async function settleCharge(db: Db, reservationId: bigint | null, usage: UsageRecordInput): Promise<SettledCharge> {
  const r = await sql<{ usage_id: bigint; credits: bigint }>`
    with released as (
      delete from credit_reservations where id = ${reservationId}::bigint returning amount
    ), acct as (
      update accounts set
        credits = credits - ${usage.cost}::bigint,
        reserved = reserved - coalesce((select sum(amount) from released), 0)::bigint,
        updated_at = now()
      where id = ${usage.accountId}
      returning credits
    ), used as (
      insert into usage_records (account_id, key_id, model, served_model, provider_id, upstream_model, endpoint,
        input_tokens, cached_input_tokens, output_tokens, image_count, cost, latency_ms, status, usage_source, request_id)
      values (${usage.accountId}, ${usage.keyId}, ${usage.model}, ${usage.servedModel}, ${usage.providerId}, ${usage.upstreamModel},
        ${usage.endpoint}, ${usage.inputTokens}, ${usage.cachedInputTokens}, ${usage.outputTokens}, ${usage.imageCount},
        ${usage.cost}::bigint, ${usage.latencyMs}, ${usage.status}, ${usage.usageSource}, ${usage.requestId})
      returning id
    ), ledger as (
      insert into credit_ledger (account_id, amount, kind, balance_after, usage_id, note)
      select ${usage.accountId}, -${usage.cost}::bigint, 'charge', acct.credits, used.id, null
      from acct, used where ${usage.cost}::bigint <> 0
    )
    select used.id as usage_id, acct.credits from used, acct`.execute(db);
  const row = r.rows[0];
  if (!row) throw new Error(`account ${usage.accountId} not found while settling request ${usage.requestId}`);
  return { usageId: row.usage_id, cost: usage.cost, credits: row.credits };
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
