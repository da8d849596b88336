import { sql } from 'kysely';
import type { UsageSource } from '../../accounts/accounts.tables.ts';
import { intArrayLiteral, textArrayLiteral } from '../../storage/array-literal.ts';
import { PREPARED, type Db } from '../../storage/database.ts';

/**
 * Credit leases: an instance holds a slice of an account's available balance (credits -
 * reserved) as one `credit_reservations` row, takes each request's hold out of it in memory and
 * writes the charges behind the answers (docs/decisions-accounts.md, "Credit leases").
 * `accounts.reserved` is the sum of the account's lease rows at every commit.
 */

export interface LeaseTaken {
  /** The lease row (a new one when the instance had none, or its old one was swept). */
  readonly leaseId: bigint;
  /** Micro-credits added to the lease. */
  readonly granted: bigint;
  /** Whether the row named in the call still existed (false: it was swept and a new one made). */
  readonly grown: boolean;
  /** The account's available balance outside every lease after this one grew. */
  readonly availableAfter: bigint;
}

/**
 * Moves up to `want` micro-credits of the account's available balance into a lease, under the
 * account's row lock, so concurrent leases (of any instance) never hold more than the balance
 * between them. Refused (`taken` null) when the available balance is <= 0 or below `minimum`.
 * `elsewhere` is what other live instances' leases of the account hold: credits that come back
 * when their requests end and their leases go idle (a dead instance's lease, not renewed lately,
 * does not count).
 *
 * One statement. Commits without waiting for the WAL flush (synchronous_commit off for this
 * transaction only): a lease lost in a server crash loses its `reserved` increment with it (one
 * transaction), and the instance that took it spends nothing it could not have held anyway.
 */
export async function takeLease(
  db: Db,
  input: {
    accountId: number;
    instanceId: string;
    leaseId: bigint | null;
    want: bigint;
    minimum: bigint;
    /** Other instances' leases count in `elsewhere` when renewed within this long (default 20 s). */
    renewedWithinMs?: number;
  },
): Promise<{ readonly taken: LeaseTaken | null; readonly elsewhere: bigint }> {
  const r = await sql<{ amount: bigint | null; available: bigint | null; grown_id: bigint | null; created_id: bigint | null; elsewhere: bigint }>`${PREPARED}
    with relaxed as (
      select set_config('synchronous_commit', 'off', true)
    ), acct as (
      select id, credits - reserved as available from accounts where id = ${input.accountId} for update
    ), granted as (
      select id, least(${input.want}::bigint, available) as amount from acct
      where available > 0 and available >= ${input.minimum}::bigint
    ), reserved as (
      update accounts a set reserved = a.reserved + g.amount from granted g where a.id = g.id returning g.amount
    ), existing as (
      select id from credit_reservations where id = ${input.leaseId}::bigint for update
    ), grown as (
      update credit_reservations r set amount = r.amount + (select amount from reserved), renewed_at = now()
      where r.id in (select id from existing) and exists (select 1 from reserved)
      returning r.id
    ), created as (
      insert into credit_reservations (account_id, amount, request_id, instance_id)
      select ${input.accountId}, amount, 'lease', ${input.instanceId} from reserved
      where not exists (select 1 from existing)
      returning id
    )
    select (select amount from granted) as amount, (select available from acct) as available,
      (select id from grown) as grown_id, (select id from created) as created_id, (select count(*) from relaxed) as relaxed,
      (select coalesce(sum(amount), 0)::bigint from credit_reservations where account_id = ${input.accountId}
        and instance_id <> ${input.instanceId} and renewed_at >= now() - make_interval(secs => ${(input.renewedWithinMs ?? 20_000) / 1000})) as elsewhere`.execute(db);
  const row = r.rows[0];
  const elsewhere = row?.elsewhere ?? 0n;
  if (!row || row.amount === null || row.available === null) return { taken: null, elsewhere };
  const leaseId = row.grown_id ?? row.created_id;
  if (leaseId === null) throw new Error(`lease of account ${input.accountId} was neither grown nor created`);
  return { taken: { leaseId, granted: row.amount, grown: row.grown_id !== null, availableAfter: row.available - row.amount }, elsewhere };
}

/**
 * Gives `amount` of a lease back to the account's available balance (idle, or shutdown), and
 * deletes the row once nothing is left in it. Returns what was given back: nothing when the
 * row is gone (swept), never more than the row holds.
 */
export async function returnLease(db: Db, leaseId: bigint, amount: bigint): Promise<bigint> {
  return db.transaction().execute(async (trx) => {
    const r = await sql<{ returned: bigint }>`
      with lease as (
        select id, account_id, least(amount, ${amount}::bigint) as returned from credit_reservations where id = ${leaseId}::bigint for update
      ), shrunk as (
        update credit_reservations r set amount = r.amount - l.returned from lease l where r.id = l.id returning r.id
      ), acct as (
        update accounts a set reserved = a.reserved - l.returned, updated_at = now() from lease l where a.id = l.account_id returning a.id
      )
      select l.returned, (select count(*) from shrunk) + (select count(*) from acct) as n from lease l`.execute(trx);
    await sql`delete from credit_reservations where id = ${leaseId}::bigint and amount = 0`.execute(trx);
    return r.rows[0]?.returned ?? 0n;
  });
}

/** Marks every lease of a live instance as alive, so no sweep takes it (one statement). */
export async function renewLeases(db: Db, instanceId: string): Promise<void> {
  await sql`update credit_reservations set renewed_at = now() where instance_id = ${instanceId}`.execute(db);
}

export interface UsageRecordInput {
  readonly accountId: number;
  readonly keyId: number | null;
  readonly model: string;
  readonly servedModel: string | null;
  readonly providerId: string | null;
  readonly upstreamModel: string | null;
  readonly endpoint: string;
  readonly lane: string | null;
  readonly inputTokens: number;
  readonly cachedInputTokens: number;
  readonly outputTokens: number;
  readonly imageCount: number;
  /** What the request cost at its prices, exact. */
  readonly cost: bigint;
  readonly latencyMs: number;
  readonly status: number;
  readonly usageSource: UsageSource | null;
  readonly requestId: string;
}

export interface SettleItem {
  /** The lease the request's hold came from; null for a request that held nothing. */
  readonly leaseId: bigint | null;
  /** What the account pays: the cost, capped at what the request held. */
  readonly charged: bigint;
  readonly usage: UsageRecordInput;
}

export interface SettledCharge {
  readonly usageId: bigint;
  /** What the request cost. */
  readonly cost: bigint;
  /** What the account paid (the cost capped at the hold); cost - charged was the operator's. */
  readonly charged: bigint;
  /** The account's credits after the charge. */
  readonly credits: bigint;
}

/**
 * Writes the charges of many requests in one transaction (group commit): each request's usage
 * record; its `charged` taken from the balance and from the lease it was held in (so available
 * does not change: the lease had taken it already); its ledger rows. When a request cost more
 * than it held, the difference is an `operator_cost` row (+shortfall) before the `charge` row
 * (-cost): the charge row is the request's exact cost, the account pays only what it held, the
 * ledger still sums to the balance, and no row shows a balance below zero. The accounts are
 * locked in id order (no deadlock with another instance's batch); balances follow input order.
 * A lease already swept takes nothing back; the charge is written all the same.
 */
export async function settleCharges(db: Db, items: readonly SettleItem[]): Promise<SettledCharge[]> {
  return db.transaction().execute(async (trx) => {
    const ids = [...new Set(items.map((i) => i.usage.accountId))].sort((a, b) => a - b);
    const locked = await sql<{ id: number; credits: bigint }>`${PREPARED}
      select id, credits from accounts where id = any(${intArrayLiteral(ids)}::int[]) order by id for update`.execute(trx);
    const credits = new Map(locked.rows.map((r) => [r.id, r.credits]));
    const before: bigint[] = [];
    const after = items.map(({ usage, charged }) => {
      const c = credits.get(usage.accountId);
      if (c === undefined) throw new Error(`account ${usage.accountId} not found while settling request ${usage.requestId}`);
      before.push(c);
      credits.set(usage.accountId, c - charged);
      return c - charged;
    });
    const ints = (f: (i: SettleItem) => number | bigint | null) => intArrayLiteral(items.map(f));
    const texts = (f: (u: UsageRecordInput) => string | null) => textArrayLiteral(items.map((i) => f(i.usage)));
    // Prepared: parsing and planning this statement was most of a small batch's cost on PGlite.
    // Columns go as array literals made here (array-literal.ts), not as arrays for the driver.
    const r = await sql<{ ord: string; id: bigint }>`${PREPARED}
      with v as (
        select * from unnest(
          ${ints((i) => i.leaseId)}::bigint[], ${ints((i) => i.charged)}::bigint[],
          ${ints((i) => i.usage.accountId)}::int[], ${ints((i) => i.usage.keyId)}::int[], ${texts((u) => u.model)}::text[],
          ${texts((u) => u.servedModel)}::text[], ${texts((u) => u.providerId)}::text[], ${texts((u) => u.upstreamModel)}::text[],
          ${texts((u) => u.endpoint)}::text[], ${ints((i) => i.usage.inputTokens)}::int[], ${ints((i) => i.usage.cachedInputTokens)}::int[],
          ${ints((i) => i.usage.outputTokens)}::int[], ${ints((i) => i.usage.imageCount)}::int[], ${ints((i) => i.usage.cost)}::bigint[],
          ${ints((i) => i.usage.latencyMs)}::int[], ${ints((i) => i.usage.status)}::int[], ${texts((u) => u.usageSource)}::text[],
          ${texts((u) => u.requestId)}::text[], ${intArrayLiteral(before)}::bigint[], ${intArrayLiteral(after)}::bigint[],
          ${texts((u) => u.lane)}::text[]
        ) with ordinality as v(lease_id, charged, account_id, key_id, model, served_model, provider_id, upstream_model, endpoint,
          input_tokens, cached_input_tokens, output_tokens, image_count, cost, latency_ms, status, usage_source, request_id,
          balance_before, balance_after, lane, ord)
      ), per_lease as (
        select lease_id, sum(charged)::bigint as charged from v where lease_id is not null group by lease_id
      ), leases as (
        update credit_reservations r set amount = r.amount - p.charged from per_lease p where r.id = p.lease_id
        returning r.account_id, p.charged
      ), per as (
        select v.account_id, sum(v.charged)::bigint as charged,
          coalesce((select sum(charged) from leases where leases.account_id = v.account_id), 0)::bigint as released
        from v group by v.account_id
      ), balances as (
        update accounts a set credits = a.credits - per.charged, reserved = a.reserved - per.released, updated_at = now()
        from per where a.id = per.account_id
      ), ids as (
        select ord, nextval((select pg_get_serial_sequence('usage_records', 'id'))::regclass) as id from v
      ), used as (
        insert into usage_records (id, account_id, key_id, model, served_model, provider_id, upstream_model, endpoint,
          input_tokens, cached_input_tokens, output_tokens, image_count, cost, latency_ms, status, usage_source, request_id, lane)
        select ids.id, v.account_id, v.key_id, v.model, v.served_model, v.provider_id, v.upstream_model, v.endpoint,
          v.input_tokens, v.cached_input_tokens, v.output_tokens, v.image_count, v.cost, v.latency_ms, v.status,
          v.usage_source, v.request_id, v.lane
        from v join ids using (ord) order by v.ord
      ), ledger as (
        insert into credit_ledger (account_id, amount, kind, balance_after, usage_id, note)
        select account_id, amount, kind, balance_after, usage_id, null from (
          select v.ord, 0 as step, v.account_id, v.cost - v.charged as amount, 'operator_cost' as kind,
            v.balance_before + v.cost - v.charged as balance_after, ids.id as usage_id
          from v join ids using (ord) where v.cost > v.charged
          union all
          select v.ord, 1, v.account_id, -v.cost, 'charge', v.balance_after, ids.id
          from v join ids using (ord) where v.cost <> 0
        ) x order by ord, step
      )
      select ord::text as ord, id from ids`.execute(trx);
    const usageIds = new Map(r.rows.map((row) => [Number(row.ord) - 1, row.id]));
    return items.map((i, k) => ({ usageId: usageIds.get(k)!, cost: i.usage.cost, charged: i.charged, credits: after[k]! }));
  });
}

/**
 * Releases leases not renewed for `olderThanMs` (their instance died), in one statement, so
 * several instances may sweep at once. Returns how many were released.
 */
export async function releaseStaleHolds(db: Db, olderThanMs: number): Promise<number> {
  const r = await sql<{ n: number }>`
    with gone as (
      delete from credit_reservations
      where renewed_at < now() - make_interval(secs => ${olderThanMs / 1000})
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
