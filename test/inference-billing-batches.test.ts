import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import {
  holdCredits,
  holdCreditsMany,
  settleCharge,
  settleChargesMany,
  type HoldInput,
  type UsageRecordInput,
} from '../src/inference/billing/credits.repository.ts';
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

/** What an account's rows say, in a form two runs can be compared on. */
async function books(db: Db, id: number) {
  const a = await db.selectFrom('accounts').select(['credits', 'reserved']).where('id', '=', id).executeTakeFirstOrThrow();
  const holds = await db.selectFrom('credit_reservations').select(['amount', 'request_id']).where('account_id', '=', id).orderBy('id').execute();
  const ledger = await db.selectFrom('credit_ledger').select(['amount', 'kind', 'balance_after']).where('account_id', '=', id).orderBy('id').execute();
  const usage = await db
    .selectFrom('usage_records')
    .select(['model', 'served_model', 'provider_id', 'upstream_model', 'endpoint', 'input_tokens', 'cached_input_tokens', 'output_tokens', 'image_count', 'cost', 'latency_ms', 'status', 'usage_source', 'request_id'])
    .where('account_id', '=', id)
    .orderBy('id')
    .execute();
  // Every charge names its usage record, with the same cost.
  const charges = await sql<{ ok: boolean }>`
    select bool_and(l.amount = -u.cost) as ok from credit_ledger l join usage_records u on u.id = l.usage_id where l.account_id = ${id}`.execute(db);
  return { ...a, holds, ledger, usage, chargesMatch: charges.rows[0]?.ok ?? null };
}

const usage = (accountId: number, requestId: string, cost: bigint, extra: Partial<UsageRecordInput> = {}): UsageRecordInput => ({
  accountId,
  keyId: null,
  model: 'svc-fast',
  servedModel: null,
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

describe('batched holds and settlements write what one-by-one writes would', () => {
  let h: DatabaseHandle;
  before(async () => {
    h = await freshDatabase();
    await migrateToLatest(h.db);
  });
  after(() => h.close());

  it('holds in input order per account, with partial holds and refusals, in one transaction', async () => {
    const run = async (batched: boolean) => {
      const a = await account(h.db, 10n);
      const b = await account(h.db, 5n);
      const empty = await account(h.db, 0n);
      const inputs: HoldInput[] = [
        { accountId: a, estimate: 4n, minimum: 1n, requestId: 'r1' },
        { accountId: b, estimate: 7n, minimum: 2n, requestId: 'r2' },
        { accountId: a, estimate: 4n, minimum: 1n, requestId: 'r3' },
        { accountId: a, estimate: 4n, minimum: 3n, requestId: 'r4' },
        { accountId: a, estimate: 4n, minimum: 1n, requestId: 'r5' },
        { accountId: a, estimate: 4n, minimum: 1n, requestId: 'r6' },
        { accountId: empty, estimate: 1n, minimum: 1n, requestId: 'r7' },
        { accountId: 999_999, estimate: 1n, minimum: 1n, requestId: 'r8' },
      ];
      const held = [];
      if (batched) held.push(...(await holdCreditsMany(h.db, inputs)));
      else for (const i of inputs) held.push(await holdCredits(h.db, i));
      return { amounts: held.map((x) => x?.amount ?? null), ids: held.map((x) => x?.id ?? null), books: [await books(h.db, a), await books(h.db, b), await books(h.db, empty)] };
    };
    const one = await run(false);
    const many = await run(true);
    assert.deepEqual(many.amounts, [4n, 5n, 4n, null, 2n, null, null, null]);
    assert.deepEqual(many.amounts, one.amounts);
    assert.deepEqual(many.books, one.books);
    assert.equal(new Set(many.ids.filter(Boolean).map(String)).size, 4, 'each hold has its own row');
    assert.equal(many.books[0]!.reserved, 10n);
  });

  it('settles with releases, charges, usage records and ledger balances in input order', async () => {
    const run = async (batched: boolean) => {
      const a = await account(h.db, 100n);
      const b = await account(h.db, 50n);
      const h1 = await holdCredits(h.db, { accountId: a, estimate: 30n, minimum: 1n, requestId: 's1' });
      const h2 = await holdCredits(h.db, { accountId: a, estimate: 30n, minimum: 1n, requestId: 's2' });
      const h3 = await holdCredits(h.db, { accountId: b, estimate: 20n, minimum: 1n, requestId: 's3' });
      const h4 = await holdCredits(h.db, { accountId: b, estimate: 20n, minimum: 1n, requestId: 's4' });
      // s4's hold was released meanwhile (the stale sweep): settling it still charges.
      await sql`delete from credit_reservations where id = ${h4!.id}::bigint`.execute(h.db);
      await sql`update accounts set reserved = reserved - 20 where id = ${b}`.execute(h.db);
      const items = [
        { reservationId: h1!.id, usage: usage(a, 's1', 25n) },
        { reservationId: h3!.id, usage: usage(b, 's3', 0n, { status: 502, usageSource: null, providerId: null, upstreamModel: null }) },
        { reservationId: h2!.id, usage: usage(a, 's2', 41n, { servedModel: 'svc-fast', model: 'svc-shiplow', usageSource: 'estimated' }) },
        { reservationId: h4!.id, usage: usage(b, 's4', 12n) },
        { reservationId: null, usage: usage(a, 's5', 3n, { endpoint: 'images.generations', imageCount: 1 }) },
      ];
      const settled = [];
      if (batched) settled.push(...(await settleChargesMany(h.db, items)));
      else for (const i of items) settled.push(await settleCharge(h.db, i.reservationId, i.usage));
      return { results: settled.map((s) => [s.cost, s.credits]), usageIds: settled.map((s) => s.usageId), requestIds: items.map((i) => i.usage.requestId), books: [await books(h.db, a), await books(h.db, b)] };
    };
    const one = await run(false);
    const many = await run(true);
    assert.deepEqual(many.results, [[25n, 75n], [0n, 50n], [41n, 34n], [12n, 38n], [3n, 31n]]);
    assert.deepEqual(many.results, one.results);
    assert.deepEqual(many.books, one.books);
    assert.equal(many.books[0]!.reserved, 0n);
    assert.equal(many.books[1]!.reserved, 0n);
    assert.equal(many.books[0]!.chargesMatch, true);
    assert.deepEqual(many.books[0]!.ledger.map((l) => [l.kind, l.amount, l.balance_after]), [['grant', 100n, 100n], ['charge', -25n, 75n], ['charge', -41n, 34n], ['charge', -3n, 31n]]);
    // Every usage id belongs to its own request.
    const rows = await h.db.selectFrom('usage_records').select(['id', 'request_id']).where('id', 'in', many.usageIds).execute();
    assert.deepEqual(new Map(rows.map((r) => [r.id, r.request_id])), new Map(many.usageIds.map((id, k) => [id, many.requestIds[k]])));
  });
});
