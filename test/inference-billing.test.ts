import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import OpenAI from 'openai';
import type { ModelConfig } from '../src/config/catalog.ts';
import { OUT_OF_CREDITS, createBilling, type Reservation } from '../src/inference/billing/billing.ts';
import { releaseStaleHolds } from '../src/inference/billing/credits.repository.ts';
import { HttpError } from '../src/shared/errors.ts';
import { systemClock } from '../src/shared/clock.ts';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { createTestAccount, creditBooks, mountInferenceProbes, type TestAccount } from './helpers/inference.ts';
import { waitFor } from './helpers/wait.ts';


/** The books once the app's idle credit leases went back to the account (CREDIT_LEASE_IDLE_MS). */
async function returnedBooks(t: TestApp, accountId: number) {
  return waitFor(
    async () => {
      const a = await creditBooks(t, accountId);
      return a.reserved === 0n ? a : null;
    },
    { message: `the lease of account ${accountId} was never returned` },
  );
}

/** The operator's cost written for an account: what its requests cost beyond their holds. */
async function operatorCost(t: TestApp, accountId: number): Promise<bigint> {
  const r = await t.deps.db
    .selectFrom('credit_ledger')
    .select(sql<bigint>`coalesce(sum(amount), 0)::bigint`.as('sum'))
    .where('account_id', '=', accountId)
    .where('kind', '=', 'operator_cost')
    .executeTakeFirstOrThrow();
  return r.sum;
}

describe('model checks and reserve-then-settle through a probe route', () => {
  let t: TestApp;
  let openai: (key: string) => OpenAI;
  before(async () => {
    // Only the anthropic upstream is configured: svc-fast (openai only) is not available.
    t = await startTestApp({ env: { ANTHROPIC_API_KEY: 'sk-ant-test', CREDIT_LEASE_IDLE_MS: '100' }, beforeReady: mountInferenceProbes });
    await t.listen();
    openai = (key) => new OpenAI({ apiKey: key, baseURL: t.url + '/v1', maxRetries: 0 });
  });
  after(() => t.close());

  const chat = (acct: TestAccount, body: Record<string, unknown>) =>
    t.app.inject({ method: 'POST', url: '/v1/_probe/chat', headers: { authorization: `Bearer ${acct.key}` }, payload: body });

  it('answers 404, 400 and 503 for unknown, wrong-endpoint and unavailable models, before credits', async () => {
    const broke = await createTestAccount(t);
    const cases: Array<[string, number, string]> = [
      ['svc-nope', 404, 'model not found: svc-nope'],
      ['svc-embed', 400, 'model svc-embed does not support /v1/chat/completions'],
      ['svc-fast', 503, 'model svc-fast is not available'],
    ];
    for (const [model, status, error] of cases) {
      const r = await chat(broke, { model, prompt: 'hi' });
      assert.equal(r.statusCode, status, model);
      assert.deepEqual(r.json(), { error });
      assert.ok(r.headers['x-ratelimit-remaining-requests'] !== undefined);
    }
    const shape = await chat(broke, { model: 'svc-pro' });
    assert.equal(shape.statusCode, 400);
    assert.deepEqual(shape.json(), { error: 'missing required field: prompt' });
  });

  it('answers 402 with no credits, through the openai client too', async () => {
    const broke = await createTestAccount(t);
    await assert.rejects(openai(broke.key).post('/_probe/chat', { body: { model: 'svc-pro', prompt: 'hi' } }), (e: unknown) => {
      assert.ok(e instanceof OpenAI.APIError);
      assert.equal(e.status, 402);
      assert.equal(e.error, OUT_OF_CREDITS);
      return true;
    });
    const pipeline = await chat(broke, { model: 'svc-shiplow', prompt: 'hi' });
    assert.equal(pipeline.statusCode, 402, 'svc-shiplow is available through its svc-pro lanes');
  });

  it('holds the estimate, charges the real usage with cached tokens discounted, and records it', async () => {
    const acct = await createTestAccount(t, { credits: 10 });
    // svc-pro: 3.20 in, 0.80 cached, 9.80 out per 1K. 'hello world' is 11 bytes -> 4 tokens.
    const r = await chat(acct, {
      model: 'svc-pro',
      prompt: 'hello world',
      max_tokens: 1000,
      usage: { input_tokens: 1200, cached_input_tokens: 200, output_tokens: 300 },
    });
    assert.equal(r.statusCode, 200, r.body);
    // held: ceil((4 * 3,200,000 + 1000 * 9,800,000) / 1000); cost: (1000*3.2M + 200*0.8M + 300*9.8M)/1000
    assert.deepEqual(r.json(), { held: '9812800', cost: '6300000', credits: '3700000' });
    const a = await returnedBooks(t, acct.id);
    assert.equal(a.credits, 3_700_000n);

    const usage = await t.app.inject({ url: `/admin/accounts/${acct.id}/usage`, headers: t.admin });
    assert.equal(usage.statusCode, 200);
    const [row] = usage.json().data;
    assert.equal(row.model, 'svc-pro');
    assert.equal(row.endpoint, 'chat.completions');
    assert.equal(row.input_tokens, 1200);
    assert.equal(row.cached_input_tokens, 200);
    assert.equal(row.output_tokens, 300);
    assert.equal(row.cost, 6.3);
    assert.equal(row.cost_micro, '6300000');
    assert.equal(row.status, 200);
    assert.equal(row.usage_source, 'upstream');
    assert.equal(row.provider, 'openai-main');
    assert.equal(row.upstream_model, 'upstream-secret-model');
    assert.equal(row.key_id, acct.keyId);
    assert.equal(typeof row.request_id, 'string');
    assert.ok(row.latency_ms >= 0);
  });

  it('holds only what is available when it covers the input, charges at most that, and books the rest as the operator cost', async () => {
    const acct = await createTestAccount(t, { credits: 1 });
    const r = await chat(acct, { model: 'svc-pro', prompt: 'hello', max_tokens: 100_000, usage: { input_tokens: 10, output_tokens: 200 } });
    assert.equal(r.statusCode, 200);
    // held everything (1 credit); cost (10 * 3.2M + 200 * 9.8M) / 1000 = 1.992 credits: the
    // account pays the 1 it held and the operator the 0.992 beyond it.
    assert.deepEqual(r.json(), { held: '1000000', cost: '1992000', credits: '0' });
    assert.equal(await operatorCost(t, acct.id), 992_000n);
    const next = await chat(acct, { model: 'svc-pro', prompt: 'hello' });
    assert.equal(next.statusCode, 402);
    assert.deepEqual(next.json(), { error: OUT_OF_CREDITS });
    const a = await returnedBooks(t, acct.id);
    assert.equal(a.credits, 0n);
    const [row] = (await t.app.inject({ url: `/admin/accounts/${acct.id}/usage`, headers: t.admin })).json().data;
    assert.equal(row.cost_micro, '1992000', 'the usage record keeps the exact cost');
  });

  it('refuses with 402 a prompt whose input alone the balance cannot cover', async () => {
    const acct = await createTestAccount(t, { credits: 0.01 });
    // 30,000 bytes -> 10,000 tokens of input -> 32 credits: far above 0.01.
    const r = await chat(acct, { model: 'svc-pro', prompt: 'x'.repeat(30_000), max_tokens: 1 });
    assert.equal(r.statusCode, 402);
    const small = await chat(acct, { model: 'svc-pro', prompt: 'x', max_tokens: 1, usage: { input_tokens: 1, output_tokens: 1 } });
    assert.equal(small.statusCode, 200);
  });

  it('releases the hold of a failed request, charges nothing and records the status', async () => {
    const acct = await createTestAccount(t, { credits: 5 });
    const r = await chat(acct, { model: 'svc-pro', prompt: 'hello', max_tokens: 10, fail: 502 });
    assert.equal(r.statusCode, 502);
    const a = await returnedBooks(t, acct.id);
    assert.equal(a.credits, 5_000_000n);
    const [row] = (await t.app.inject({ url: `/admin/accounts/${acct.id}/usage`, headers: t.admin })).json().data;
    assert.equal(row.status, 502);
    assert.equal(row.cost, 0);
    assert.equal(row.usage_source, null);
  });

  it('refuses a negative balance', async () => {
    const acct = await createTestAccount(t, { credits: 1 });
    await t.app.inject({ method: 'POST', url: `/admin/accounts/${acct.id}/credits`, headers: t.admin, payload: { credits: -3, note: 'chargeback' } });
    const r = await chat(acct, { model: 'svc-pro', prompt: 'hi', max_tokens: 1 });
    assert.equal(r.statusCode, 402);
    await creditBooks(t, acct.id);
  });
});

describe('concurrent reservations (PostgreSQL when DATABASE_URL is set)', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  // A model priced 1 credit per 1K input tokens and nothing else, so costs are easy to read.
  const model = (): ModelConfig => ({
    ...t.deps.config.catalog.models.get('svc-fast')!,
    pricing: { input: 1_000_000n, cachedInput: 1_000_000n, output: 0n, perImage: 0n },
  });

  /**
   * n requests at once, each holding `estimate` and then costing `cost` (micro-credits). Returns
   * the holds of those let in; the others must have been refused with 402.
   */
  async function race(acct: TestAccount, n: number, estimate: bigint, costTokens: number): Promise<Reservation[]> {
    const billing = createBilling(t.deps.db, systemClock);
    const principal = { accountId: acct.id, keyId: acct.keyId, emailVerified: true, keyPrefix: 'svk_x' };
    const m = model();
    const outcomes = await Promise.all(
      Array.from({ length: n }, async (_, i) => {
        let r: Reservation;
        try {
          r = await billing.reserve({
            principal,
            model: m,
            endpoint: 'chat.completions',
            requestId: `race-${i}`,
            charge: { estimate, minimum: 100_000n },
          });
        } catch (e) {
          assert.ok(e instanceof HttpError && e.status === 402, String(e));
          return null;
        }
        await new Promise((resolve) => setImmediate(resolve));
        await billing.settle(r, { usage: { inputTokens: costTokens }, usageSource: 'upstream' });
        return r;
      }),
    );
    return outcomes.filter((r): r is Reservation => r !== null);
  }

  it('lets in exactly what the balance covers and never goes below zero when costs stay within holds', async () => {
    const acct = await createTestAccount(t, { credits: 10 });
    const admitted = await race(acct, 50, 1_000_000n, 1000);
    assert.equal(admitted.length, 10);
    const a = await creditBooks(t, acct.id);
    assert.equal(a.credits, 0n);
    assert.equal(a.reserved, 0n);
    const usage = await t.deps.db.selectFrom('usage_records').select(sql<number>`count(*)::integer`.as('n')).where('account_id', '=', acct.id).executeTakeFirstOrThrow();
    assert.equal(usage.n, 10);
  });

  it('never goes below zero when costs exceed holds: the account pays its holds, the operator the rest', async () => {
    const acct = await createTestAccount(t, { credits: 10.5 });
    // Each holds up to 1 credit and costs 1.2: the extra 0.2 of each admitted request is the operator's.
    const admitted = await race(acct, 50, 1_000_000n, 1200);
    const a = await creditBooks(t, acct.id);
    const cost = 1_200_000n;
    const held = admitted.reduce((s, r) => s + r.amount, 0n);
    assert.ok(held <= 10_500_000n, 'holds never exceed the balance');
    assert.equal(a.credits, 10_500_000n - held, 'each request paid exactly what it held');
    assert.ok(a.credits >= 0n);
    assert.equal(await operatorCost(t, acct.id), cost * BigInt(admitted.length) - held);
    assert.ok(admitted.length <= 11);
  });

  it('gives back the leases of an instance that stopped, and a late settle still charges', async () => {
    const acct = await createTestAccount(t, { credits: 3 });
    const billing = createBilling(t.deps.db, systemClock);
    const principal = { accountId: acct.id, keyId: acct.keyId, emailVerified: true, keyPrefix: 'svk_x' };
    const r = await billing.reserve({ principal, model: model(), endpoint: 'chat.completions', requestId: 'lost', charge: { estimate: 2_000_000n, minimum: 1n } });
    assert.equal(r.amount, 2_000_000n);
    const leased = (await creditBooks(t, acct.id)).reserved;
    assert.ok(leased >= 2_000_000n && leased <= 3_000_000n, 'the lease holds the request and at most the balance');
    await billing.written(); // a renewal ahead of time may still be on its way
    // Only this account's lease goes stale: other test files may share the database (PostgreSQL)
    // and their instances' leases are alive.
    await sql`update credit_reservations set renewed_at = now() - interval '1 hour' where account_id = ${acct.id}`.execute(t.deps.db);
    assert.ok((await releaseStaleHolds(t.deps.db, 60_000)) >= 1);
    assert.equal((await creditBooks(t, acct.id)).reserved, 0n);
    await billing.settle(r, { usage: { inputTokens: 500 }, usageSource: 'estimated' });
    const a = await creditBooks(t, acct.id);
    assert.equal(a.credits, 2_500_000n);
    assert.equal(a.reserved, 0n);
    await assert.rejects(billing.settle(r, { usage: { inputTokens: 1 }, usageSource: 'upstream' }), /already settled/);
    await billing.close();
  });
});
