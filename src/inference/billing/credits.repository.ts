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
 *
 * Holds commit without waiting for the WAL flush (synchronous_commit off for this transaction
 * only): the next request of the account waits on the row lock for the hold's commit, and a
 * flush per hold would cap an account at one hold per disk flush. Losing a hold in a server
 * crash loses its `reserved` increment with it (one transaction), so the books stay balanced;
 * the request it covered then settles without a hold, which the overdraft bound already allows
 * for. Settlements (the charges) keep durable commits.
 */
export async function holdCredits(
  db: Db,
  input: { accountId: number; estimate: bigint; minimum: bigint; requestId: string },
): Promise<HeldCredits | null> {
  const r = await sql<{ found: boolean; amount: bigint | null; id: bigint | null }>`
    with relaxed as (
      select set_config('synchronous_commit', 'off', true)
    ), acct as (
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
    select exists (select 1 from acct) as found, (select amount from held) as amount, (select id from hold) as id,
      (select count(*) from relaxed) as relaxed`.execute(db);
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

export interface HoldInput {
  readonly accountId: number;
  readonly estimate: bigint;
  readonly minimum: bigint;
  readonly requestId: string;
}

const text = (v: bigint): string => v.toString();

/**
 * holdCredits for many requests in one transaction (group commit): the accounts are locked in id
 * order (no deadlock with another instance's batch), the holds are decided in input order as if
 * each request had come alone (a later request of an account sees what the earlier ones held),
 * then one statement writes every hold and every account's reserved total.
 */
export async function holdCreditsMany(db: Db, inputs: readonly HoldInput[]): Promise<(HeldCredits | null)[]> {
  return db.transaction().execute(async (trx) => {
    // Not worth a disk flush, see holdCredits.
    await sql`set local synchronous_commit = off`.execute(trx);
    const ids = [...new Set(inputs.map((i) => i.accountId))].sort((a, b) => a - b);
    const locked = await sql<{ id: number; available: bigint }>`
      select id, credits - reserved as available from accounts where id = any(${ids}::int[]) order by id for update`.execute(trx);
    const available = new Map(locked.rows.map((r) => [r.id, r.available]));
    const amounts = inputs.map((i) => {
      const a = available.get(i.accountId);
      if (a === undefined || a <= 0n || a < i.minimum) return null;
      const amount = i.estimate < a ? i.estimate : a;
      available.set(i.accountId, a - amount);
      return amount;
    });
    const toHold = inputs.flatMap((i, k) => (amounts[k]! > 0n ? [{ k, i, amount: amounts[k]! }] : []));
    const holdIds = new Map<number, bigint>();
    if (toHold.length > 0) {
      const r = await sql<{ ord: string; id: bigint }>`
        with v as (
          select * from unnest(${toHold.map((h) => h.i.accountId)}::int[], ${toHold.map((h) => text(h.amount))}::bigint[],
            ${toHold.map((h) => h.i.requestId)}::text[]) with ordinality as v(account_id, amount, request_id, ord)
        ), ids as (
          select ord, nextval(pg_get_serial_sequence('credit_reservations', 'id')) as id from v
        ), held as (
          insert into credit_reservations (id, account_id, amount, request_id)
          select ids.id, v.account_id, v.amount, v.request_id from v join ids using (ord)
        ), per as (
          select account_id, sum(amount)::bigint as amount from v group by account_id
        ), reserved as (
          update accounts a set reserved = a.reserved + per.amount from per where a.id = per.account_id
        )
        select ord::text as ord, id from ids`.execute(trx);
      for (const row of r.rows) holdIds.set(toHold[Number(row.ord) - 1]!.k, row.id);
    }
    return amounts.map((amount, k) => (amount === null ? null : amount === 0n ? { id: null, amount: 0n } : { id: holdIds.get(k)!, amount }));
  });
}

export interface SettleInput {
  readonly reservationId: bigint | null;
  readonly usage: UsageRecordInput;
}

/**
 * settleCharge for many requests in one transaction (group commit). The accounts are locked in
 * id order first, so every ledger row gets the balance right after its own charge, in input
 * order, as if each request had settled alone; then one statement releases the holds, updates
 * the balances and writes the usage records and ledger rows (ids drawn beforehand, so each
 * ledger row names its usage record).
 */
export async function settleChargesMany(db: Db, items: readonly SettleInput[]): Promise<SettledCharge[]> {
  return db.transaction().execute(async (trx) => {
    const ids = [...new Set(items.map((i) => i.usage.accountId))].sort((a, b) => a - b);
    const locked = await sql<{ id: number; credits: bigint }>`
      select id, credits from accounts where id = any(${ids}::int[]) order by id for update`.execute(trx);
    const credits = new Map(locked.rows.map((r) => [r.id, r.credits]));
    const after = items.map(({ usage }) => {
      const c = credits.get(usage.accountId);
      if (c === undefined) throw new Error(`account ${usage.accountId} not found while settling request ${usage.requestId}`);
      credits.set(usage.accountId, c - usage.cost);
      return c - usage.cost;
    });
    const col = <T>(f: (u: UsageRecordInput) => T) => items.map((i) => f(i.usage));
    const r = await sql<{ ord: string; id: bigint }>`
      with v as (
        select * from unnest(
          ${items.map((i) => (i.reservationId === null ? null : text(i.reservationId)))}::bigint[],
          ${col((u) => u.accountId)}::int[], ${col((u) => u.keyId)}::int[], ${col((u) => u.model)}::text[],
          ${col((u) => u.servedModel)}::text[], ${col((u) => u.providerId)}::text[], ${col((u) => u.upstreamModel)}::text[],
          ${col((u) => u.endpoint)}::text[], ${col((u) => u.inputTokens)}::int[], ${col((u) => u.cachedInputTokens)}::int[],
          ${col((u) => u.outputTokens)}::int[], ${col((u) => u.imageCount)}::int[], ${col((u) => text(u.cost))}::bigint[],
          ${col((u) => u.latencyMs)}::int[], ${col((u) => u.status)}::int[], ${col((u) => u.usageSource)}::text[],
          ${col((u) => u.requestId)}::text[], ${after.map(text)}::bigint[]
        ) with ordinality as v(hold_id, account_id, key_id, model, served_model, provider_id, upstream_model, endpoint,
          input_tokens, cached_input_tokens, output_tokens, image_count, cost, latency_ms, status, usage_source, request_id,
          balance_after, ord)
      ), released as (
        delete from credit_reservations r using v where r.id = v.hold_id returning r.account_id, r.amount
      ), per as (
        select v.account_id, sum(v.cost)::bigint as cost,
          coalesce((select sum(amount) from released where released.account_id = v.account_id), 0)::bigint as released
        from v group by v.account_id
      ), balances as (
        update accounts a set credits = a.credits - per.cost, reserved = a.reserved - per.released, updated_at = now()
        from per where a.id = per.account_id
      ), ids as (
        select ord, nextval(pg_get_serial_sequence('usage_records', 'id')) as id from v
      ), used as (
        insert into usage_records (id, account_id, key_id, model, served_model, provider_id, upstream_model, endpoint,
          input_tokens, cached_input_tokens, output_tokens, image_count, cost, latency_ms, status, usage_source, request_id)
        select ids.id, v.account_id, v.key_id, v.model, v.served_model, v.provider_id, v.upstream_model, v.endpoint,
          v.input_tokens, v.cached_input_tokens, v.output_tokens, v.image_count, v.cost, v.latency_ms, v.status,
          v.usage_source, v.request_id
        from v join ids using (ord) order by v.ord
      ), ledger as (
        insert into credit_ledger (account_id, amount, kind, balance_after, usage_id, note)
        select v.account_id, -v.cost, 'charge', v.balance_after, ids.id, null
        from v join ids using (ord) where v.cost <> 0 order by v.ord
      )
      select ord::text as ord, id from ids`.execute(trx);
    const usageIds = new Map(r.rows.map((row) => [Number(row.ord) - 1, row.id]));
    return items.map((i, k) => ({ usageId: usageIds.get(k)!, cost: i.usage.cost, credits: after[k]! }));
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
