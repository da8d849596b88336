import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { startGateway } from './helpers/gateway.ts';
import { createTestAccount } from './helpers/inference.ts';

const ENV = { RATE_LIMIT_INFERENCE_PER_MINUTE: '100000' };

/**
 * Why "/v1/responses: many concurrent stored responses" fails under load: an open-output request
 * holds half of what the account has (holdAmount) and the lease grows to twice what is held, so
 * one instance with many requests in flight holds nearly the whole balance. Another instance
 * then finds nothing to lease and no hold of its own to wait for, and answers 402 at once,
 * although the account has plenty. Whether that happens in the concurrent test depends only on
 * how many of instance one's requests are still in flight when a follow-up reaches instance two.
 * Marked todo until billing waits for (or asks for) credits held by another instance. Not yet a
 * deterministic reproduction: how much instance one holds depends on how its arrivals interleave
 * with its lease growth, so instance two is refused in most runs here, not all.
 */
describe('credits: one account on two instances', () => {
  it('a request on one instance is not refused while another instance holds the account in flight', { todo: 'billing answers 402 at once when another instance holds the balance' }, async () => {
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
});
