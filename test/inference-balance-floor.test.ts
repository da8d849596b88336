import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import OpenAI from 'openai';
import { startGateway, type Gateway } from './helpers/gateway.ts';
import { createTestAccount, type TestAccount } from './helpers/inference.ts';
import { waitFor } from './helpers/wait.ts';

/**
 * Issue: with credits for about five requests and fifty in parallel, where the upstream produced
 * far more output than the hold assumed, balances ended below zero. A balance must never go
 * below zero: every request pays at most what it held, the rest is the operator's cost, and the
 * books balance.
 */

const MODELS = [
  { model: 'svc-fast', fake: (g: Gateway) => g.openai },
  { model: 'svc-vision', fake: (g: Gateway) => g.anthropic },
  { model: 'svc-pro', fake: (g: Gateway) => g.anthropic },
  { model: 'svc-shiplow', fake: (g: Gateway) => g.openai },
  { model: 'svc-ultra', fake: (g: Gateway) => g.anthropic },
] as const;

type Route = 'chat' | 'chat stream' | 'completions' | 'completions stream' | 'messages' | 'responses';
const ROUTES: Route[] = ['chat', 'chat stream', 'completions', 'completions stream', 'messages', 'responses'];

/** Balance, ledger, leases and operator cost of an account once its lease went back. */
async function settledBooks(g: Gateway, accountId: number) {
  const db = g.t.deps.db;
  const a = await waitFor(
    async () => {
      const x = await db.selectFrom('accounts').select(['credits', 'reserved']).where('id', '=', accountId).executeTakeFirstOrThrow();
      return x.reserved === 0n ? x : null;
    },
    { message: `account ${accountId}: the lease never went back`, timeoutMs: 30_000 },
  );
  const ledger = await db
    .selectFrom('credit_ledger')
    .select([sql<bigint>`coalesce(sum(amount), 0)::bigint`.as('sum'), sql<bigint>`coalesce(sum(amount) filter (where kind = 'operator_cost'), 0)::bigint`.as('operator')])
    .where('account_id', '=', accountId)
    .executeTakeFirstOrThrow();
  const lowest = await db.selectFrom('credit_ledger').select(sql<bigint | null>`min(balance_after)`.as('min')).where('account_id', '=', accountId).executeTakeFirstOrThrow();
  const usage = await db
    .selectFrom('usage_records')
    .select([sql<number>`count(*)::integer`.as('n'), sql<bigint>`coalesce(sum(cost), 0)::bigint`.as('cost')])
    .where('account_id', '=', accountId)
    .executeTakeFirstOrThrow();
  return { ...a, ledger: ledger.sum, operator: ledger.operator, lowest: lowest.min, usage };
}

async function call(client: OpenAI, route: Route, model: string, i: number): Promise<number> {
  // Half the requests give max_tokens, half do not (the hold is then a share of the balance).
  const limit = i % 2 === 0 ? { max_tokens: 50 } : {};
  try {
    if (route === 'messages' || route === 'responses') {
      // The Anthropic protocol and stored responses go through the same holds.
      const body =
        route === 'messages'
          ? { model, messages: [{ role: 'user', content: `hi ${i}` }], ...limit }
          : { model, input: `hi ${i}`, ...(i % 2 === 0 ? { max_output_tokens: 50 } : {}) };
      const r = await fetch(`${client.baseURL}/${route}`, { method: 'POST', headers: { authorization: `Bearer ${client.apiKey}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
      await r.arrayBuffer();
      return r.status;
    }
    if (route === 'chat') await client.chat.completions.create({ model, messages: [{ role: 'user', content: `hi ${i}` }], ...limit });
    else if (route === 'completions') await client.completions.create({ model, prompt: `hi ${i}`, ...limit });
    else if (route === 'chat stream') {
      for await (const _ of await client.chat.completions.create({ model, messages: [{ role: 'user', content: `hi ${i}` }], stream: true, ...limit })) {
        // read to the end
      }
    } else {
      for await (const _ of await client.completions.create({ model, prompt: `hi ${i}`, stream: true, ...limit })) {
        // read to the end
      }
    }
    return 200;
  } catch (e) {
    if (e instanceof OpenAI.APIError && e.status !== undefined) return e.status;
    throw e;
  }
}

describe('a tiny balance and fifty requests in parallel never go below zero', () => {
  let g: Gateway;
  before(async () => {
    g = await startGateway({ env: { CREDIT_LEASE_IDLE_MS: '100', RATE_LIMIT_INFERENCE_PER_MINUTE: '1000000' } });
  });
  after(() => g.close());

  for (const { model, fake } of MODELS) {
    for (const route of ROUTES) {
      it(`${model}, ${route}`, async () => {
        const acct: TestAccount = await createTestAccount(g.t, { credits: 0.5 });
        // Far more output than any hold assumed: 20,000 tokens (9 to 220 credits) per request.
        for (let i = 0; i < 50; i++) fake(g).chat.enqueue({ text: 'A long answer.', usage: { input: 30, cached: 0, output: 20_000 } });
        const client = g.client(acct.key);
        const sent = fake(g).requests.length;
        const statuses = await Promise.all(Array.from({ length: 50 }, (_, i) => call(client, route, model, i)));
        // 502: seen once under heavy machine load (the fake upstream's answer failed); that
        // request's hold is released and the floor below must hold all the same.
        assert.ok(statuses.every((s) => s === 200 || s === 402 || s === 502), `only 200, 402 or 502 (${statuses.join(',')})`);
        // The upstream was never asked for more output than the hold pays for: 0.5 credits buy
        // at most 833 output tokens of the cheapest of these models.
        for (const r of fake(g).requests.slice(sent)) {
          const max = (r.body as { max_tokens?: unknown }).max_tokens;
          assert.ok(typeof max === 'number' && max >= 1 && max <= 833, `max_tokens ${String(max)} sent upstream`);
        }
        const b = await settledBooks(g, acct.id);
        assert.ok(b.credits >= 0n, `balance ${b.credits} went below zero`);
        assert.equal(b.ledger, b.credits, 'the ledger sums to the balance');
        assert.ok(b.lowest === null || b.lowest >= 0n, 'no ledger row shows a balance below zero');
        assert.equal(b.usage.n, statuses.filter((s) => s !== 402).length, 'one usage record per request let in');
        // The account paid 0.5 - credits; the usage records' costs are that plus the operator's part.
        assert.equal(b.usage.cost, 500_000n - b.credits + b.operator);
        // Drop the scenarios of the refused requests, for the next case.
        while (fake(g).chat.next().text === 'A long answer.') {
          // (an empty queue answers with its default greeting)
        }
      });
    }
  }
});
