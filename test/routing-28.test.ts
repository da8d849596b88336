import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { PLAIN_RESILIENCE, PRICES, UPSTREAM_MODELS, accountCredits, expectedCost, shippedCatalog, startGateway, usageRows, waitForUsage, type Gateway, type UsageRow } from './helpers/gateway.ts';
import { createTestAccount, type TestAccount } from './helpers/inference.ts';

/**
 * svc-shiplow, svc-ultra and svc-auto on the shipped catalog, upstreams on the fakes: a caller's
 * fallback list never calls one deployment twice, and reasoning through the pipelines
 * (docs/api-decisions.md, "Routing: session 28").
 */
describe('routing: session 28', () => {
  let g: Gateway;
  let acct: TestAccount;
  let openai: OpenAI;
  let anthropic: Anthropic;

  before(async () => {
    g = await startGateway({ catalog: (f) => shippedCatalog(f, PLAIN_RESILIENCE), env: { RATE_LIMIT_INFERENCE_PER_MINUTE: '100000' } });
    acct = await createTestAccount(g.t, { credits: 100_000 });
    openai = g.client(acct.key);
    anthropic = new Anthropic({ apiKey: acct.key, baseURL: `${g.t.url}/inference`, maxRetries: 0 });
  });
  after(() => g.close());

  /** Runs `fn`, then returns the one usage record it left, checking the balance moved by exactly its cost. */
  async function billed(fn: () => Promise<void>): Promise<UsageRow> {
    const before = await accountCredits(g.t, acct.id);
    const seen = (await usageRows(g.t, acct.id)).length;
    await fn();
    const [row] = await waitForUsage(g.t, acct.id, seen + 1);
    const after = await accountCredits(g.t, acct.id);
    assert.equal(after.reserved, 0n, 'nothing reserved after');
    assert.equal(before.credits - after.credits, BigInt(row!.cost_micro), 'the ledger moved what the usage record says');
    return row!;
  }

  /** The upstream model names each fake was asked for by the calls `fn` made. */
  async function callsOf(fn: () => Promise<void>): Promise<{ openai: string[]; anthropic: string[] }> {
    const o = g.openai.requests.length;
    const a = g.anthropic.requests.length;
    await fn();
    const models = (rs: readonly { body: unknown }[]) => rs.map((r) => (r.body as { model: string }).model);
    return { openai: models(g.openai.requests.slice(o)), anthropic: models(g.anthropic.requests.slice(a)) };
  }

  type Body = OpenAI.Chat.ChatCompletionCreateParamsNonStreaming & { models?: unknown };
  const USAGE = { input: 100, cached: 0, output: 10 };

  describe('a caller fallback list calls each deployment once', () => {
    it('models [svc-fast, svc-shiplow]: svc-fast down, svc-shiplow serves from svc-pro without asking svc-fast\'s deployment again', async () => {
      g.openai.chat.enqueue({ error: { status: 503 } });
      g.anthropic.chat.enqueue({ text: 'from pro', usage: USAGE });
      let answer!: { data: OpenAI.Chat.ChatCompletion; response: Response };
      let row!: UsageRow;
      const calls = await callsOf(async () => {
        row = await billed(async () => {
          const body: Body = { model: 'svc-fast', models: ['svc-shiplow'], messages: [{ role: 'user', content: 'Write a birthday message for my sister.' }] };
          answer = await openai.chat.completions.create(body).withResponse();
        });
      });
      assert.deepEqual(calls, { openai: [UPSTREAM_MODELS.fast], anthropic: [UPSTREAM_MODELS.pro] });
      assert.equal(answer.data.choices[0]!.message.content, 'from pro');
      assert.deepEqual([answer.data.model, answer.response.headers.get('x-svc-model'), answer.response.headers.get('x-svc-lane')], ['svc-shiplow', 'svc-pro', 'general']);
      assert.deepEqual([row.model, row.served_model, row.lane, row.upstream_model], ['svc-fast', 'svc-pro', 'general', UPSTREAM_MODELS.pro]);
      assert.equal(BigInt(row.cost_micro), expectedCost(PRICES['svc-shiplow'], USAGE));
    });
  });
});
