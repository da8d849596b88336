import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { releaseStaleHolds, returnLease, settleCharges, takeLease, type SettleItem, type UsageRecordInput } from '../src/inference/billing/credits.repository.ts';
import { migrateToLatest, type DatabaseHandle, type Db } from '../src/storage/database.ts';
import { freshDatabase } from './helpers/database.ts';

/** An account with a grant, as the admin API makes them (the ledger sums to the balance). */
async function account(db: Db, credits: bigint): Promise<number> {
  const a = await sql<{ id: number }>`
    insert into accounts (email, email_verified, credits) values (${`b${Math.random().toString(36).slice(2)}@example.com`}, true, ${credits}::bigint)
    returning id`.execute(db);
  const id = a.rows[0]!.id;
  if (credits !== 0n) {
    await sql`insert into credit_ledger (account_id, amount, kind, balance_after) values (${id}, ${credits}::bigint, 'grant', ${credits}::bigint)`.execute(db);
  }
  return id;
}

/** What an account's rows say, in a form two runs can be compared on; checks the books. */
async function books(db: Db, id: number) {
  const a = await db.selectFrom('accounts').select(['credits', 'reserved']).where('id', '=', id).executeTakeFirstOrThrow();
  const leases = await db.selectFrom('credit_reservations').select(['amount']).where('account_id', '=', id).orderBy('id').execute();
  const ledger = await db.selectFrom('credit_ledger').select(['amount', 'kind', 'balance_after']).where('account_id', '=', id).orderBy('id').execute();
  const usage = await db
    .selectFrom('usage_records')
    .select(['model', 'served_model', 'provider_id', 'upstream_model', 'endpoint', 'input_tokens', 'cached_input_tokens', 'output_tokens', 'image_count', 'cost', 'latency_ms', 'status', 'usage_source', 'request_id'])
    .where('account_id', '=', id)
    .orderBy('id')
    .execute();
  assert.equal(ledger.reduce((s, l) => s + l.amount, 0n), a.credits, 'the ledger sums to the balance');
  assert.equal(leases.reduce((s, l) => s + l.amount, 0n), a.reserved, 'the leases sum to reserved');
  // Every charge row is its usage record's cost.
  const charges = await sql<{ ok: boolean }>`
    select bool_and(l.amount = -u.cost) as ok from credit_ledger l join usage_records u on u.id = l.usage_id where l.account_id = ${id} and l.kind = 'charge'`.execute(db);
  // The charge rows carry no foreign keys (migration 2026_11_26_98): the query docs/operations.md
  // gives operators finds no row pointing at a missing account, key or usage record.
  const orphans = await sql<{ n: string }>`
    select (select count(*) from usage_records u
              where not exists (select 1 from accounts a where a.id = u.account_id)
                 or (u.key_id is not null and not exists (select 1 from api_keys k where k.id = u.key_id)))
         + (select count(*) from credit_ledger l
              where not exists (select 1 from accounts a where a.id = l.account_id)
                 or (l.usage_id is not null and not exists (select 1 from usage_records u where u.id = l.usage_id))) as n`.execute(db);
  assert.equal(Number(orphans.rows[0]!.n), 0, 'no usage record or ledger row points at a missing row');
  return { ...a, leases, ledger, usage, chargesMatch: charges.rows[0]?.ok ?? null };
}

const usage = (accountId: number, requestId: string, cost: bigint, extra: Partial<UsageRecordInput> = {}): UsageRecordInput => ({
  accountId,
  keyId: null,
  model: 'svc-fast',
  servedModel: null,
  lane: null,
  providerId: 'main-openai',
  upstreamModel: 'gpt-4.1-mini',
  endpoint: 'chat.completions',
  inputTokens: 10,
  cachedInputTokens: 2,
  outputTokens: 5,
  imageCount: 0,
  cost,
  latencyMs: 7,
  status: 200,
  usageSource: 'upstream',
  requestId,
  ...extra,
});

describe('credit leases and batched charges', () => {
  let h: DatabaseHandle;
  before(async () => {
    h = await freshDatabase();
    await migrateToLatest(h.db);
  });
  after(() => h.close());

  it('leases never hold more than the balance between them, and grow one row per instance', async () => {
    const a = await account(h.db, 10n);
    const first = (await takeLease(h.db, { accountId: a, instanceId: 'i1', leaseId: null, want: 4n, minimum: 1n })).taken;
    assert.deepEqual({ granted: first?.granted, grown: first?.grown, availableAfter: first?.availableAfter }, { granted: 4n, grown: false, availableAfter: 6n });
    const second = (await takeLease(h.db, { accountId: a, instanceId: 'i2', leaseId: null, want: 100n, minimum: 1n })).taken;
    assert.equal(second?.granted, 6n, 'the rest of the balance, not more');
    assert.equal((await takeLease(h.db, { accountId: a, instanceId: 'i1', leaseId: first!.leaseId, want: 1n, minimum: 1n })).taken, null, 'nothing left');
    assert.equal((await takeLease(h.db, { accountId: 999_999, instanceId: 'i1', leaseId: null, want: 1n, minimum: 1n })).taken, null);
    assert.equal((await books(h.db, a)).reserved, 10n);
    assert.equal(await returnLease(h.db, second!.leaseId, 5n), 5n);
    const grown = (await takeLease(h.db, { accountId: a, instanceId: 'i1', leaseId: first!.leaseId, want: 3n, minimum: 2n })).taken;
    assert.deepEqual([grown?.leaseId, grown?.granted, grown?.grown], [first!.leaseId, 3n, true]);
    assert.deepEqual((await books(h.db, a)).leases.map((l) => l.amount), [7n, 1n]);
    assert.equal((await takeLease(h.db, { accountId: a, instanceId: 'i1', leaseId: first!.leaseId, want: 5n, minimum: 3n })).taken, null, 'below the minimum');
    // A lease given back entirely is deleted; returning more than it holds returns what it holds.
    assert.equal(await returnLease(h.db, second!.leaseId, 9n), 1n);
    assert.equal(await returnLease(h.db, second!.leaseId, 1n), 0n);
    assert.deepEqual((await books(h.db, a)).leases.map((l) => l.amount), [7n]);
  });

  it('a swept lease is replaced by a new row, not grown', async () => {
    const a = await account(h.db, 10n);
    const l = (await takeLease(h.db, { accountId: a, instanceId: 'gone', leaseId: null, want: 4n, minimum: 1n })).taken;
    await sql`update credit_reservations set renewed_at = now() - interval '10 minutes' where id = ${l!.leaseId}::bigint`.execute(h.db);
    assert.ok((await releaseStaleHolds(h.db, 60_000)) >= 1);
    assert.equal((await books(h.db, a)).reserved, 0n);
    const again = (await takeLease(h.db, { accountId: a, instanceId: 'gone', leaseId: l!.leaseId, want: 4n, minimum: 1n })).taken;
    assert.equal(again?.grown, false);
    assert.notEqual(again?.leaseId, l!.leaseId);
    assert.equal((await books(h.db, a)).reserved, 4n);
  });

  it('settles in one transaction what one-by-one writes would, with the shortfall as the operator cost', async () => {
    const run = async (batched: boolean) => {
      const a = await account(h.db, 100n);
      const b = await account(h.db, 50n);
      const la = (await takeLease(h.db, { accountId: a, instanceId: 'x', leaseId: null, want: 80n, minimum: 1n })).taken;
      const lb = (await takeLease(h.db, { accountId: b, instanceId: 'x', leaseId: null, want: 40n, minimum: 1n })).taken;
      const items: SettleItem[] = [
        { leaseId: la!.leaseId, charged: 25n, usage: usage(a, 's1', 25n) },
        { leaseId: lb!.leaseId, charged: 0n, usage: usage(b, 's3', 0n, { status: 502, usageSource: null, providerId: null, upstreamModel: null }) },
        // Cost 41, held 30: the account pays 30, the operator 11.
        { leaseId: la!.leaseId, charged: 30n, usage: usage(a, 's2', 41n, { servedModel: 'svc-fast', model: 'svc-shiplow', usageSource: 'estimated' }) },
        { leaseId: lb!.leaseId, charged: 12n, usage: usage(b, 's4', 12n) },
        { leaseId: null, charged: 3n, usage: usage(a, 's5', 3n, { endpoint: 'images.generations', imageCount: 1 }) },
      ];
      const settled = batched ? await settleCharges(h.db, items) : [];
      if (!batched) for (const i of items) settled.push(...(await settleCharges(h.db, [i])));
      return {
        results: settled.map((s) => [s.cost, s.charged, s.credits]),
        usageIds: settled.map((s) => s.usageId),
        requestIds: items.map((i) => i.usage.requestId),
        books: [await books(h.db, a), await books(h.db, b)],
      };
    };
    const one = await run(false);
    const many = await run(true);
    assert.deepEqual(many.results, [[25n, 25n, 75n], [0n, 0n, 50n], [41n, 30n, 45n], [12n, 12n, 38n], [3n, 3n, 42n]]);
    assert.deepEqual(many.results, one.results);
    assert.deepEqual(many.books, one.books);
    assert.deepEqual(many.books[0]!.leases.map((l) => l.amount), [25n], 'charges come out of the lease');
    assert.equal(many.books[0]!.reserved, 25n);
    assert.equal(many.books[0]!.chargesMatch, true);
    assert.deepEqual(many.books[0]!.ledger.map((l) => [l.kind, l.amount, l.balance_after]), [
      ['grant', 100n, 100n],
      ['charge', -25n, 75n],
      ['operator_cost', 11n, 86n],
      ['charge', -41n, 45n],
      ['charge', -3n, 42n],
    ]);
    const rows = await h.db.selectFrom('usage_records').select(['id', 'request_id']).where('id', 'in', many.usageIds).execute();
    assert.deepEqual(new Map(rows.map((r) => [r.id, r.request_id])), new Map(many.usageIds.map((id, k) => [id, many.requestIds[k]])));
  });
});
