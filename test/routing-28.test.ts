import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { PLAIN_RESILIENCE, PRICES, UPSTREAM_MODELS, billedOnce, expectedCost, startShippedWithSdks, type Gateway, type UsageRow } from './helpers/gateway.ts';
import { countTextTokens } from '../src/inference/tokens/count-tokens.ts';
import type { TestAccount } from './helpers/inference.ts';

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
    ({ g, acct, openai, anthropic } = await startShippedWithSdks(PLAIN_RESILIENCE));
  });
  after(() => g.close());

  const billed = (fn: () => Promise<void>): Promise<UsageRow> => billedOnce(g, acct.id, fn);

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

  describe('reasoning through svc-shiplow, svc-ultra and svc-auto', () => {
    const GENERAL = 'Write a birthday message for my sister.';
    const MATH = 'Solve 2x + 7 = 19.';
    const THOUGHT = 'A short, warm message; mention the shared memories.';
    type Protocol = 'chat' | 'responses' | 'messages';
    const PROTOCOLS: readonly Protocol[] = ['chat', 'responses', 'messages'];

    before(() => {
      // As OpenAI does for gpt-4.1 and gpt-4.1-mini: a reasoning parameter sent to them is a 400.
      g.openai.nonReasoningModels.add(UPSTREAM_MODELS.fast);
      g.openai.nonReasoningModels.add(UPSTREAM_MODELS.proFallback);
    });
    after(() => g.openai.nonReasoningModels.clear());

    /** One request asking for high reasoning in `protocol`: the routing it got and what its upstream was sent about reasoning. */
    async function ask(model: string, protocol: Protocol, text: string): Promise<{ routing: (string | null)[]; sent: Record<string, unknown>[] }> {
      const o = g.openai.requests.length;
      const a = g.anthropic.requests.length;
      let routing: (string | null)[];
      if (protocol === 'chat') {
        const r = await openai.chat.completions.create({ model, reasoning_effort: 'high', messages: [{ role: 'user', content: text }] }).withResponse();
        routing = [r.data.model, r.response.headers.get('x-svc-lane'), r.response.headers.get('x-svc-model')];
      } else if (protocol === 'responses') {
        const r = await openai.responses.create({ model, reasoning: { effort: 'high' }, input: text }).withResponse();
        routing = [r.data.model, r.response.headers.get('x-svc-lane'), r.response.headers.get('x-svc-model')];
      } else {
        const r = await anthropic.messages.create({ model, max_tokens: 16000, thinking: { type: 'enabled', budget_tokens: 8000 }, messages: [{ role: 'user', content: text }] }).withResponse();
        routing = [r.data.model, r.response.headers.get('x-svc-lane'), r.response.headers.get('x-svc-model')];
      }
      const reasoningOf = (r: { body: unknown }) => {
        const b = r.body as Record<string, unknown>;
        return { model: b.model, reasoning_effort: b.reasoning_effort, thinking: b.thinking, max_tokens: b.max_tokens };
      };
      return { routing, sent: [...g.openai.requests.slice(o).map(reasoningOf), ...g.anthropic.requests.slice(a).map(reasoningOf)] };
    }

    it('each executor gets the reasoning the executing brand gets alone: translated for svc-pro, dropped for svc-fast', async () => {
      const cases = [
        { model: 'svc-shiplow', text: GENERAL, routing: ['svc-shiplow', 'general', 'svc-fast'] },
        { model: 'svc-shiplow', text: MATH, routing: ['svc-shiplow', 'math', 'svc-pro'] },
        { model: 'svc-ultra', text: GENERAL, routing: ['svc-ultra', 'general', 'svc-pro'] },
        { model: 'svc-ultra', text: MATH, routing: ['svc-ultra', 'math', 'svc-pro'] },
        // svc-auto's reasoning rule: svc-pro, even for a general request svc-fast would take.
        { model: 'svc-auto', text: GENERAL, routing: ['svc-pro', 'general', 'svc-pro'] },
      ];
      for (const protocol of PROTOCOLS) {
        for (const c of cases) {
          const executor = c.routing[2]!;
          const alone = await ask(executor, protocol, c.text);
          assert.equal(alone.sent.length, 1);
          const routed = await ask(c.model, protocol, c.text);
          assert.deepEqual(routed.routing, c.routing, `${c.model} ${protocol}: ${c.text}`);
          assert.deepEqual(routed.sent, alone.sent, `${c.model} ${protocol}: the upstream was sent what ${executor} alone is sent`);
        }
        // What the single models are sent, for the record: svc-fast's gpt-4.1-mini nothing of reasoning, svc-pro's Claude thinking.
        const fast = await ask('svc-fast', protocol, GENERAL);
        assert.equal(fast.sent[0]!.reasoning_effort, undefined);
        assert.equal(fast.sent[0]!.thinking, undefined);
        const pro = await ask('svc-pro', protocol, GENERAL);
        assert.deepEqual(pro.sent[0]!.thinking, protocol === 'messages' ? { type: 'enabled', budget_tokens: 8000 } : { type: 'enabled', budget_tokens: 16000 });
      }
    });

    it("svc-pro's Claude down inside a pipeline: its gpt-4.1 fallback answers without the reasoning parameter, billed at the pipeline's prices", async () => {
      for (const protocol of PROTOCOLS) {
        g.anthropic.chat.enqueue({ error: { status: 503 } });
        const usage = { input: 40, cached: 0, output: 25 };
        g.openai.chat.enqueue({ text: 'Happy birthday!', usage });
        let sent!: Record<string, unknown>[];
        const row = await billed(async () => {
          const r = await ask('svc-ultra', protocol, GENERAL);
          assert.deepEqual(r.routing, ['svc-ultra', 'general', 'svc-pro'], protocol);
          sent = r.sent;
        });
        assert.deepEqual(sent.map((s) => [s.model, s.reasoning_effort, s.thinking !== undefined]), [
          [UPSTREAM_MODELS.proFallback, undefined, false],
          [UPSTREAM_MODELS.pro, undefined, true],
        ], protocol);
        assert.deepEqual([row.model, row.served_model, row.lane, row.upstream_model, row.output_tokens], ['svc-ultra', 'svc-pro', 'general', UPSTREAM_MODELS.proFallback, 25]);
        assert.equal(BigInt(row.cost_micro), expectedCost(PRICES['svc-ultra'], usage));
      }
    });

    it('reasoning tokens: the thinking the executor did is billed as the output it reported, and shown as reasoning tokens', async () => {
      const usage = { input: 60, cached: 0, output: 300 };
      g.anthropic.chat.enqueue({ reasoning: THOUGHT, text: 'x = 6.', usage });
      let answer!: OpenAI.Chat.ChatCompletion;
      const row = await billed(async () => {
        answer = await openai.chat.completions.create({ model: 'svc-shiplow', reasoning_effort: 'high', messages: [{ role: 'user', content: MATH }] });
      });
      assert.deepEqual(answer.usage!.completion_tokens_details, { reasoning_tokens: countTextTokens(THOUGHT) });
      assert.equal(answer.usage!.completion_tokens, 300);
      assert.deepEqual([row.model, row.served_model, row.lane, row.output_tokens], ['svc-shiplow', 'svc-pro', 'math', 300]);
      assert.equal(BigInt(row.cost_micro), expectedCost(PRICES['svc-shiplow'], usage));

      g.anthropic.chat.enqueue({ reasoning: THOUGHT, text: 'x = 6.', usage });
      let response!: OpenAI.Responses.Response;
      const auto = await billed(async () => {
        response = await openai.responses.create({ model: 'svc-auto', reasoning: { effort: 'low' }, input: MATH });
      });
      assert.equal(response.usage!.output_tokens_details.reasoning_tokens, countTextTokens(THOUGHT));
      assert.equal(response.usage!.output_tokens, 300);
      assert.deepEqual([auto.model, auto.served_model, auto.lane, auto.output_tokens], ['svc-auto', 'svc-pro', 'math', 300]);
      assert.equal(BigInt(auto.cost_micro), expectedCost(PRICES['svc-pro'], usage));
    });
  });

  describe("svc-auto's rules and limits count tokens as the bill does", () => {
    // About 150K tokens by the tokenizer (what an upstream bills), 270K by the byte-based estimate.
    const report = 'The quarterly report says sales grew in every region. '.repeat(15_000) + '\nSummarise this report.';

    it('a prompt of 150K tokens is under the 200,000 of the long-input rule: the cheapest model serves it', async () => {
      const r = await openai.chat.completions.create({ model: 'svc-auto', messages: [{ role: 'user', content: report }] }).withResponse();
      assert.deepEqual([r.data.model, r.response.headers.get('x-svc-lane'), r.response.headers.get('x-svc-model')], ['svc-fast', 'general', 'svc-fast']);
    });
  });
});
