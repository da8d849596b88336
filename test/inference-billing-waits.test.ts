import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import type { ModelConfig } from '../src/config/catalog.ts';
import { OUT_OF_CREDITS, createBilling, type Billing, type Reservation } from '../src/inference/billing/billing.ts';
import { computeCost } from '../src/inference/billing/cost.ts';
import { releaseStaleHolds } from '../src/inference/billing/credits.repository.ts';
import { estimateCharge, type ChargeEstimate } from '../src/inference/billing/estimate.ts';
import { HttpError } from '../src/shared/errors.ts';
import { systemClock } from '../src/shared/clock.ts';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { createTestAccount, creditBooks, type TestAccount } from './helpers/inference.ts';

/**
 * Issue: a request without max_tokens holds a share of the available balance (half, never less
 * than its typical cost), so on a balance close to one request's worst case the holds of the
 * requests in flight soon cover it all, and the next request found less than its minimum and was
 * answered 402 although the requests in flight would give back nearly all they held. A request
 * that finds the balance held by requests in flight now waits (bounded) for them to give credits
 * back; 402 comes only when, counting everything they hold, the account is short of its minimum.
 *
 * No timing: a request's outcome is read once its own lease write is done (`written()`) and the
 * microtasks after it ran (one `setImmediate`): it is then held, refused, or waiting.
 */


type Outcome = { state: 'waiting' } | { state: 'held'; r: Reservation } | { state: 'refused'; status: number; message: string };

/** Watches a reserve() without awaiting it. */
function watch(p: Promise<Reservation>): { readonly outcome: Outcome; readonly done: Promise<Reservation> } {
  const w = { outcome: { state: 'waiting' } as Outcome, done: p };
  p.then(
    (r) => (w.outcome = { state: 'held', r }),
    (e: unknown) => (w.outcome = e instanceof HttpError ? { state: 'refused', status: e.status, message: e.message } : { state: 'refused', status: 0, message: String(e) }),
  );
  return w;
}

/**
 * Lets a reserve() started just before reach its decision: its lease write, then its microtasks.
 * (No other lease write may be in flight when it starts: it would wait on that one first.)
 */
async function settled(billing: Billing): Promise<void> {
  await billing.written();
  await new Promise((r) => setImmediate(r));
}

describe('open-output holds on a small balance, many at once (PostgreSQL when DATABASE_URL is set)', () => {
  let t: TestApp;
  let fast: ModelConfig;
  before(async () => {
    t = await startTestApp();
    fast = t.deps.config.catalog.models.get('svc-fast')!;
  });
  after(() => t.close());

  // svc-fast without max_tokens: a worst case of about 811 credits (900,000 output tokens at 0.90
  // per 1K), a typical cost of about 4.6 credits, a minimum (10 input tokens) of 0.0045 credits.
  const open = (): ChargeEstimate => estimateCharge(fast, { inputTokens: 10, inputMarginTokens: 2048 });
  // What each request really costs: 0.009 credits.
  const usage = { inputTokens: 10, outputTokens: 5 };

  function client(acct: TestAccount, billing: Billing) {
    const principal = { accountId: acct.id, keyId: acct.keyId, emailVerified: true, keyPrefix: 'svk_x' };
    let n = 0;
    return (charge: ChargeEstimate = open()) => billing.reserve({ principal, model: fast, endpoint: 'chat.completions', requestId: `wait-${n++}`, charge });
  }

  /** Open-output holds taken one at a time until the account has less than one minimum left. */
  async function holdAll(balance: bigint, reserve: () => Promise<Reservation>, billing: Billing): Promise<Reservation[]> {
    const holds: Reservation[] = [];
    let held = 0n;
    while (balance - held >= open().minimum) {
      const r = await reserve();
      holds.push(r);
      held += r.amount;
      await billing.written(); // the lease's renewal ahead of time, if one started
    }
    assert.ok(held <= balance, 'holds never exceed the balance');
    return holds;
  }

  it('a request that finds the balance held by requests in flight waits for their credits instead of 402', async () => {
    const balance = 1000_000_000n;
    const acct = await createTestAccount(t, { credits: 1000 });
    const billing = createBilling(t.deps.db, systemClock, { holdWaitMs: 600_000 });
    const reserve = client(acct, billing);
    const charge = open();
    assert.ok(charge.output?.open && charge.estimate > balance / 2n && charge.estimate < balance, 'a worst case close to the balance');

    const holds = await holdAll(balance, reserve, billing);
    // Half, a quarter, ... down to the typical cost: a handful of requests hold it all.
    assert.ok(holds.length >= 2 && holds.length < 20, `${holds.length} holds cover the balance`);
    const first = holds[0]!;
    assert.equal(first.amount, balance / 2n, 'the first open request holds half of the balance');

    const next = watch(reserve());
    await settled(billing);
    assert.deepEqual(next.outcome, { state: 'waiting' }, 'not refused: the requests in flight will give credits back');
    assert.equal(billing.waiting(), 1);

    // One request in flight ends, having cost 0.009 credits: the waiting one gets a hold.
    await billing.settle(first, { usage, usageSource: 'upstream' });
    const r = await next.done;
    assert.equal(billing.waiting(), 0);
    assert.ok(r.amount >= charge.output!.typical, `held ${r.amount}, at least the typical cost`);
    const inFlight = holds.slice(1).reduce((s, h) => s + h.amount, 0n) + r.amount;
    const paid = balance - (await creditBooks(t, acct.id)).credits; // the first one's charge is written
    assert.ok(paid > 0n && inFlight + paid <= balance, 'holds in flight and charges never exceed the balance');

    await Promise.all([...holds.slice(1), r].map((h) => billing.settle(h, { usage, usageSource: 'upstream' })));
    await billing.close();
    const b = await creditBooks(t, acct.id);
    assert.equal(b.reserved, 0n);
    const cost = computeCost(fast.pricing, usage);
    assert.equal(cost, 9_000n);
    assert.equal(b.credits, balance - BigInt(holds.length + 1) * cost, 'each request paid its cost, exactly');
  });

  it('many open requests at once on a balance close to one worst case: every one is let in', async () => {
    const balance = 1000_000_000n;
    const acct = await createTestAccount(t, { credits: 1000 });
    const billing = createBilling(t.deps.db, systemClock, { holdWaitMs: 600_000 });
    const reserve = client(acct, billing);
    const n = 40;
    let held = 0;
    let refused = 0;
    let inFlight = 0n;
    let most = 0n;
    let go!: () => void;
    const gate = new Promise<void>((resolve) => (go = resolve));
    const requests = Array.from({ length: n }, async () => {
      let r: Reservation;
      try {
        r = await reserve();
      } catch (e) {
        assert.ok(e instanceof HttpError && e.status === 402, String(e));
        refused++;
        return null;
      }
      held++;
      inFlight += r.amount;
      most = inFlight > most ? inFlight : most;
      // Every request keeps its hold until all of them are held or waiting (the upstream is slow).
      await gate;
      inFlight -= r.amount;
      return billing.settle(r, { usage, usageSource: 'upstream' });
    });
    for (let i = 0; i < 10_000 && refused === 0 && held + billing.waiting() < n; i++) await settled(billing);
    assert.equal(refused, 0, 'no request is refused while the holds in flight can give credits back');
    assert.ok(held < n, `${held} of ${n} held at once: the others wait`);
    go();
    const results = await Promise.all(requests);
    assert.equal(results.filter((x) => x !== null).length, n);
    assert.ok(most <= balance, 'holds in flight never exceed the balance');
    await billing.close();
    const b = await creditBooks(t, acct.id);
    assert.equal(b.reserved, 0n);
    assert.equal(b.credits, balance - BigInt(n) * computeCost(fast.pricing, usage), 'the balance is exactly the sum of the charges');
  });

  it('an empty account, or one whose holds in flight could not cover the minimum, is refused at once', async () => {
    const billing = createBilling(t.deps.db, systemClock, { holdWaitMs: 600_000 });
    const broke = await createTestAccount(t);
    const refused = watch(client(broke, billing)());
    await settled(billing);
    assert.deepEqual(refused.outcome, { state: 'refused', status: 402, message: OUT_OF_CREDITS }, 'nothing in flight: 402 without waiting');

    // 1 credit, and one request in flight holding part of it: a prompt whose input alone costs
    // 2 credits could not be paid even once that request gave everything back.
    const acct = await createTestAccount(t, { credits: 1 });
    const reserve = client(acct, billing);
    const small = await reserve();
    assert.ok(small.amount > 0n && small.amount <= 1_000_000n);
    await billing.written(); // the lease's renewal ahead of time, if one started
    const big = watch(reserve(estimateCharge(fast, { inputTokens: 4500 })));
    await settled(billing);
    assert.deepEqual(big.outcome, { state: 'refused', status: 402, message: OUT_OF_CREDITS }, 'short even counting the holds in flight: 402 without waiting');
    assert.equal(billing.waiting(), 0);
    await billing.settle(small, { usage, usageSource: 'upstream' });
    await billing.close();
  });

  it('the wait is bounded: requests in flight that never end leave a 402', async () => {
    const acct = await createTestAccount(t, { credits: 1000 });
    const billing = createBilling(t.deps.db, systemClock, { holdWaitMs: 1 });
    const reserve = client(acct, billing);
    const holds = await holdAll(1000_000_000n, reserve, billing);
    await assert.rejects(reserve(), (e: unknown) => e instanceof HttpError && e.status === 402 && e.message === OUT_OF_CREDITS);
    assert.equal(billing.waiting(), 0);
    for (const h of holds) await billing.release(h, { status: 499 });
    await billing.close();
    const b = await creditBooks(t, acct.id);
    assert.deepEqual([b.credits, b.reserved], [1000_000_000n, 0n]);
  });

  it('a request waiting at shutdown is answered 503 at once', async () => {
    const acct = await createTestAccount(t, { credits: 1000 });
    const billing = createBilling(t.deps.db, systemClock, { holdWaitMs: 600_000 });
    const reserve = client(acct, billing);
    const holds = await holdAll(1000_000_000n, reserve, billing);
    const next = watch(reserve());
    await settled(billing);
    assert.deepEqual(next.outcome, { state: 'waiting' });
    const closing = billing.close();
    await assert.rejects(next.done, (e: unknown) => e instanceof HttpError && e.status === 503);
    await closing;
    // The requests in flight end after the shutdown here (an app closes its billing only once
    // its requests ended): their credits stay in the lease, which goes back as a dead
    // instance's would, with the stale sweep (this account's lease only: PostgreSQL may be shared).
    for (const h of holds) await billing.release(h, { status: 499 });
    await sql`update credit_reservations set renewed_at = now() - interval '1 hour' where account_id = ${acct.id}`.execute(t.deps.db);
    await releaseStaleHolds(t.deps.db, 60_000);
    const b = await creditBooks(t, acct.id);
    assert.deepEqual([b.credits, b.reserved], [1000_000_000n, 0n]);
  });
});
