import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import { startGateway } from './helpers/gateway.ts';
import { releaseStaleHolds } from '../src/inference/billing/credits.repository.ts';
import { createTestAccount, creditBooks, manualClock } from './helpers/inference.ts';
import { waitFor } from './helpers/wait.ts';

const ENV = { RATE_LIMIT_INFERENCE_PER_MINUTE: '100000' };

/**
 * Money under races, session 26 (docs/api-decisions.md, "Money under races: session 26 audit").
 */
describe('money audit 26: credit leases', () => {
  // svc-fast: max_tokens 1000 holds some 1.8 credits (output and the chat input margin): ten
  // requests on instance one lease all of a 5-credit balance, and the later ones wait there.
  it('a request waiting longer than the idle period for another instance\'s lease leaves nothing reserved', async () => {
    const one = await startGateway({ env: ENV });
    const two = await startGateway({ env: ENV, database: one.t.database });
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let closed = false;
    try {
      const acct = await createTestAccount(one.t, { credits: 5 });
      const N = 10;
      one.openai.chat.enqueue(...Array.from({ length: N }, (_, i) => ({ text: `a${i}`, waitFor: gate })));
      const ask = (g: typeof one, i: number) =>
        g.client(acct.key).chat.completions.create({ model: 'svc-fast', max_tokens: 1000, messages: [{ role: 'user', content: `q${i}` }] });
      const runs = Array.from({ length: N }, (_, i) => ask(one, i).then(() => 200, (e: { status?: number }) => e.status ?? 0));
      // Instance one's later requests wait for its own holds: the balance is all in its lease.
      await waitFor(() => one.t.deps.billing.waiting() > 0, { message: 'instance one never leased the whole balance' });
      const other = ask(two, N).then(() => 200, (e: { status?: number }) => e.status ?? 0);
      await waitFor(() => two.t.deps.billing.waiting() > 0, { message: 'instance two never waited for the credits of instance one' });
      // Many idle periods (CREDIT_LEASE_IDLE_MS is 100 ms here) pass while instance two waits.
      await new Promise((r) => setTimeout(r, 800));
      release();
      assert.deepEqual(await Promise.all(runs), Array(N).fill(200));
      assert.equal(await other, 200);
      await one.t.deps.billing.written();
      await two.t.deps.billing.written();
      await two.close();
      await one.t.deps.billing.close();
      closed = true;
      const books = await creditBooks(one.t, acct.id);
      assert.equal(books.reserved, 0n, 'every lease went back');
      const leases = await sql<{ n: number }>`select count(*)::integer as n from credit_reservations where account_id = ${acct.id}`.execute(one.t.deps.db);
      assert.equal(leases.rows[0]!.n, 0, 'no lease row is left');
      const usage = await sql<{ n: number; charges: number }>`
        select count(*)::integer as n,
          (select count(*)::integer from credit_ledger l where l.account_id = ${acct.id} and l.kind = 'charge') as charges
        from usage_records where account_id = ${acct.id}`.execute(one.t.deps.db);
      assert.equal(usage.rows[0]!.n, N + 1);
      assert.equal(usage.rows[0]!.charges, N + 1, 'every request has exactly one charge');
    } finally {
      release();
      if (!closed) await two.close();
      await one.close();
    }
  });

  // An instance that could not renew its lease for half the stale period and whose row another
  // instance swept makes a new lease row; a request still holding from the old row must not
  // add its hold to the new one when it ends.
  it('a hold of a swept lease ending after a new lease was taken does not let requests hold beyond the new lease', async () => {
    const clock = manualClock();
    const g = await startGateway({ env: ENV, clock });
    let releaseFirst!: () => void;
    const first = new Promise<void>((r) => (releaseFirst = r));
    try {
      const acct = await createTestAccount(g.t, { credits: 10 });
      const ask = (i: number) =>
        g.client(acct.key).chat.completions.create({ model: 'svc-fast', max_tokens: 1000, messages: [{ role: 'user', content: `q${i}` }] })
          .then(() => 200, (e: { status?: number }) => e.status ?? 0);
      g.openai.chat.enqueue({ text: 'a', waitFor: first });
      const a = ask(0);
      await waitFor(() => g.openai.requests.length === 1, { message: 'the first request never reached the upstream' });
      // Another instance's sweep takes the lease for a dead instance's; this one, its renewals
      // missed (the clock moves past its trust), goes to the database before the next hold.
      assert.equal(await releaseStaleHolds(g.t.deps.db, 0), 1);
      clock.advance(31_000);
      g.openai.chat.enqueue({ text: 'b' });
      assert.equal(await ask(1), 200);
      releaseFirst();
      assert.equal(await a, 200);
      await g.t.deps.billing.written();
      // Each of these costs more than its hold (an upstream that ignored the cap): the account
      // pays its whole hold, so the holds together are what the lease must cover.
      const M = 6;
      g.openai.chat.enqueue(...Array.from({ length: M }, (_, i) => ({ text: `c${i}`, usage: { input: 10, cached: 0, output: 3000 } })));
      const rest = await Promise.all(Array.from({ length: M }, (_, i) => ask(2 + i)));
      assert.ok(rest.every((s) => s === 200 || s === 402), rest.join(','));
      await g.t.deps.billing.written();
      const books = await creditBooks(g.t, acct.id);
      assert.ok(books.credits >= 0n, `the balance stays at or above zero: ${books.credits}`);
      const usage = await sql<{ n: number; charges: number }>`
        select count(*)::integer as n,
          (select count(*)::integer from credit_ledger l where l.account_id = ${acct.id} and l.kind = 'charge') as charges
        from usage_records where account_id = ${acct.id}`.execute(g.t.deps.db);
      const answered = 2 + rest.filter((s) => s === 200).length;
      assert.equal(usage.rows[0]!.n, answered, 'every answered request has its usage record');
      assert.equal(usage.rows[0]!.charges, answered, 'every answered request has exactly one charge');
    } finally {
      releaseFirst();
      await g.close();
    }
  });
});
