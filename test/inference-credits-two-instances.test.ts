import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { startGateway } from './helpers/gateway.ts';
import { createTestAccount } from './helpers/inference.ts';

const ENV = { RATE_LIMIT_INFERENCE_PER_MINUTE: '100000' };

/**
 * An open-output request holds half of what the account has (holdAmount) and the lease grows to
 * twice what is held, so one instance with many requests in flight can lease nearly the whole
 * balance. Another instance then finds nothing to lease and no hold of its own to wait for: it
 * answered 402 at once on an account with plenty. It now waits for the credits the other
 * instance's lease gives back (docs/decisions-accounts.md, "Short while requests are in flight").
 * How much instance one holds depends on how its arrivals interleave with its lease growth, so
 * before the fix instance two was refused in most runs, not all.
 */
describe('credits: one account on two instances', () => {
  it('a request on one instance is not refused while another instance holds the account in flight', async () => {
    const one = await startGateway({ env: ENV });
    const two = await startGateway({ env: ENV, database: one.t.database });
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    try {
      const acct = await createTestAccount(one.t, { credits: 100_000 });
      const N = 48;
      one.openai.chat.enqueue(...Array.from({ length: N }, (_, i) => ({ text: `a${i}`, waitFor: gate })));
      const runs = Array.from({ length: N }, (_, i) => one.client(acct.key).responses.create({ model: 'svc-fast', input: `q${i}` }));
      // Every request of instance one holds its credits, waiting at the upstream.
      while (one.openai.requests.length < N) await new Promise((r) => setImmediate(r));
      const other = two.client(acct.key).responses.create({ model: 'svc-fast', input: 'other' });
      let outcome: string | null = null;
      other.then(
        () => (outcome = 'answered'),
        (e: { status?: number }) => (outcome = `refused ${e.status}`),
      );
      // Release instance one only once instance two decided: refused, answered, or waiting for credits.
      while (outcome === null && two.t.deps.billing.waiting() === 0 && two.openai.requests.length === 0) await new Promise((r) => setImmediate(r));
      release();
      await Promise.all(runs);
      await other.catch(() => {});
      assert.equal(outcome, 'answered');
    } finally {
      release();
      await two.close();
      await one.close();
    }
  });

  it("an account short counting every instance's leases is still refused at once", async () => {
    const one = await startGateway({ env: ENV });
    const two = await startGateway({ env: ENV, database: one.t.database });
    try {
      const acct = await createTestAccount(one.t, { credits: 0 });
      let waited = false;
      const refused = two.client(acct.key).chat.completions.create({ model: 'svc-fast', messages: [{ role: 'user', content: 'hi' }] }).then(
        () => 'answered',
        (e: { status?: number }) => `refused ${e.status}`,
      );
      let outcome: string | null = null;
      void refused.then((o) => (outcome = o));
      while (outcome === null) {
        waited ||= two.t.deps.billing.waiting() > 0;
        await new Promise((r) => setImmediate(r));
      }
      assert.equal(outcome, 'refused 402');
      assert.equal(waited, false, 'refused without waiting');
    } finally {
      await two.close();
      await one.close();
    }
  });
});
