import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import { startGateway } from './helpers/gateway.ts';
import { createTestAccount, creditBooks } from './helpers/inference.ts';
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
});
