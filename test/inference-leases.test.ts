import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { createTestAccount, mountInferenceProbes, type TestAccount } from './helpers/inference.ts';
import { waitFor } from './helpers/wait.ts';

/**
 * Credit leases across two instances on one database (PostgreSQL with DATABASE_URL): each
 * instance holds requests out of its own lease, and together they never spend beyond the
 * balance; 402 comes when it is gone; leases go back at close; a dead instance's leases are
 * released at the next start or by the sweep.
 */

async function books(t: TestApp, accountId: number) {
  // One statement, one snapshot: leases go back and charges land concurrently.
  const r = await sql<{ credits: bigint; reserved: bigint; ledger: bigint; leased: bigint; leases: number; ok: number; cost: bigint }>`
    select a.credits, a.reserved,
      (select coalesce(sum(amount), 0)::bigint from credit_ledger where account_id = a.id) as ledger,
      (select coalesce(sum(amount), 0)::bigint from credit_reservations where account_id = a.id) as leased,
      (select count(*)::integer from credit_reservations where account_id = a.id) as leases,
      (select count(*)::integer from usage_records where account_id = a.id and status = 200) as ok,
      (select coalesce(sum(cost), 0)::bigint from usage_records where account_id = a.id) as cost
    from accounts a where a.id = ${accountId}`.execute(t.deps.db);
  const b = r.rows[0]!;
  assert.equal(b.ledger, b.credits, 'the ledger sums to the balance');
  assert.equal(b.leased, b.reserved, 'the leases sum to reserved');
  return { credits: b.credits, reserved: b.reserved, leases: b.leases, usage: { ok: b.ok, cost: b.cost } };
}

async function until<T extends object | true>(what: string, f: () => Promise<T | null>): Promise<T> {
  return waitFor(f, { message: `never: ${what}`, timeoutMs: 20_000 });
}

const ENV = { ANTHROPIC_API_KEY: 'sk-ant-test', OPENAI_API_KEY: 'sk-test', CREDIT_LEASE_IDLE_MS: '600000', RATE_LIMIT_INFERENCE_PER_MINUTE: '1000000' };

describe('credit leases on two instances of one database', () => {
  let one: TestApp;
  let two: TestApp;
  before(async () => {
    one = await startTestApp({ env: ENV, beforeReady: mountInferenceProbes });
    two = await startTestApp({ env: ENV, database: one.database, beforeReady: mountInferenceProbes });
  });
  after(async () => {
    await two.close();
    await one.close();
  });

  // svc-pro: 3.2 in, 9.8 out per 1K. 'hello' -> 2 tokens; held 2 * 3.2 + 100 * 9.8 = 986.4 micro... per token: 0.9864 credits.
  const body = { model: 'svc-pro', prompt: 'hello', max_tokens: 100, usage: { input_tokens: 2, output_tokens: 100 } };
  const COST = 986_400n;
  const chat = (t: TestApp, acct: TestAccount, payload: object = body) =>
    t.app.inject({ method: 'POST', url: '/v1/_probe/chat', headers: { authorization: `Bearer ${acct.key}` }, payload });

  it('serves from both leases, never beyond the balance, and answers 402 on both once it is gone', async () => {
    const acct = await createTestAccount(one, { credits: 10 });
    const results = await Promise.all(Array.from({ length: 40 }, (_, i) => chat(i % 2 === 0 ? one : two, acct)));
    const ok = results.filter((r) => r.statusCode === 200);
    assert.ok(results.every((r) => r.statusCode === 200 || r.statusCode === 402), results.map((r) => r.statusCode).join(','));
    // Ten whole holds, and at most one partial one per instance on what its lease had left.
    assert.ok(ok.length >= 9 && ok.length <= 12, `${ok.length} requests of 0.9864 credits on a balance of 10`);
    const b = await until('every charge written', async () => {
      const x = await books(one, acct.id);
      return x.usage.ok === ok.length ? x : null;
    });
    assert.equal(b.usage.cost, COST * BigInt(ok.length), 'each usage record is the exact cost');
    const operator = await one.deps.db
      .selectFrom('credit_ledger')
      .select(sql<bigint>`coalesce(sum(amount), 0)::bigint`.as('sum'))
      .where('account_id', '=', acct.id)
      .where('kind', '=', 'operator_cost')
      .executeTakeFirstOrThrow();
    assert.equal(b.credits, 10_000_000n - COST * BigInt(ok.length) + operator.sum, 'the account paid its holds, the operator the rest');
    assert.ok(b.credits >= 0n && b.credits < COST);
    // What is left cannot pay for the input of one more request on either instance.
    const big = { ...body, prompt: 'x'.repeat(1000) };
    assert.equal((await chat(one, acct, big)).statusCode, 402);
    assert.equal((await chat(two, acct, big)).statusCode, 402);
  });

  it('sees a top-up on the next request after a 402', async () => {
    const acct = await createTestAccount(one, { credits: 0.5 });
    const small = { ...body, usage: { input_tokens: 2, output_tokens: 40 } };
    assert.equal((await chat(two, acct, { ...small, prompt: 'x'.repeat(150_000) })).statusCode, 402, 'the input alone is beyond the balance');
    await one.app.inject({ method: 'POST', url: `/admin/accounts/${acct.id}/credits`, headers: one.admin, payload: { credits: 200 } });
    assert.equal((await chat(two, acct, { ...small, prompt: 'x'.repeat(150_000) })).statusCode, 200);
  });

  it('gives its leases back at close', async () => {
    const acct = await createTestAccount(one, { credits: 50 });
    const three = await startTestApp({ env: ENV, database: one.database, beforeReady: mountInferenceProbes });
    assert.equal((await chat(three, acct)).statusCode, 200);
    assert.equal((await chat(one, acct)).statusCode, 200);
    const open = await books(one, acct.id);
    assert.equal(open.leases, 2, 'one lease per instance');
    await three.close();
    const closed = await books(one, acct.id);
    assert.equal(closed.leases, 1, "the closed instance's lease is gone");
    assert.equal(closed.usage.ok, 2, 'its charges were written before it went');
    assert.ok(closed.reserved < open.reserved);
    assert.equal(closed.credits, 50_000_000n - 2n * COST);
  });
});

describe('leases of an instance that died', () => {
  let t: TestApp;
  after(() => t?.close());

  /** A lease as a killed instance leaves it: rows and reserved, last renewed ten minutes ago. */
  async function deadLease(app: TestApp, accountId: number, amount: bigint): Promise<void> {
    await app.deps.db.transaction().execute(async (trx) => {
      await sql`insert into credit_reservations (account_id, amount, request_id, instance_id, renewed_at)
        values (${accountId}, ${amount}::bigint, 'lease', 'dead', now() - interval '10 minutes')`.execute(trx);
      await sql`update accounts set reserved = reserved + ${amount}::bigint where id = ${accountId}`.execute(trx);
    });
  }

  it('are released at the next start, and by the sweep within the stale period', async () => {
    const first = await startTestApp({ env: ENV });
    const acct = await createTestAccount(first, { credits: 5 });
    await deadLease(first, acct.id, 4_000_000n);
    // The next instance on the database releases it as it starts.
    t = await startTestApp({ env: { ...ENV, CREDIT_LEASE_STALE_MS: '5000' }, database: first.database });
    await until('released at start', async () => ((await books(t, acct.id)).reserved === 0n ? true : null));
    // A lease that dies while instances run goes with the next sweep (every half stale period).
    await deadLease(t, acct.id, 3_000_000n);
    assert.equal((await books(t, acct.id)).reserved, 3_000_000n);
    await until('released by the sweep', async () => ((await books(t, acct.id)).reserved === 0n ? true : null));
    const b = await books(t, acct.id);
    assert.equal(b.credits, 5_000_000n, 'releasing a lease charges nothing');
    await first.close();
  });
});
