import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import { createOpenAI } from '@ai-sdk/openai';
import { generateText, streamText } from 'ai';
import OpenAI from 'openai';
import { sealBlockValue } from '../src/inference/formats/anthropic-messages/sealed-tokens.ts';
import { createReasoningSealers } from '../src/inference/reasoning-sealer.ts';
import { countTextTokens } from '../src/inference/tokens/count-tokens.ts';
import type { FakeServer } from './fakes/fake-server.ts';
import { catalogYaml, PRICES, startGateway, UPSTREAM_MODELS, usageRows, waitForUsage, type Gateway } from './helpers/gateway.ts';
import { createTestAccount, type TestAccount } from './helpers/inference.ts';
import { assertPaidForUsages, type CallUsage } from './helpers/books.ts';


const THOUGHT = 'The user asks for the capital of France; that is Paris, a well-known fact.';

/**
 * Both upstream kinds. What each reports as reasoning tokens: the OpenAI-style fake its own count
 * (`completion_tokens_details.reasoning_tokens`); Anthropic none, so the service counts the
 * thinking text it returned (docs/api-decisions.md, "Reasoning").
 */
const KINDS = [
  { name: 'OpenAI-style', model: 'svc-fast' as const, fake: (g: Gateway) => g.openai, reasoningTokens: 30 },
  { name: 'Anthropic', model: 'svc-vision' as const, fake: (g: Gateway) => g.anthropic, reasoningTokens: countTextTokens(THOUGHT) },
];

function lastBody(fake: FakeServer): Record<string, unknown> {
  return fake.requests.at(-1)!.body as Record<string, unknown>;
}

describe('reasoning: effort upstream, reasoning items and reasoning tokens', () => {
  let g: Gateway;
  let acct: TestAccount;
  before(async () => {
    g = await startGateway({ env: { RATE_LIMIT_INFERENCE_PER_MINUTE: '10000' } });
    acct = await createTestAccount(g.t, { credits: 10_000 });
  });
  after(() => g.close());

  /** Runs fn and checks the account paid exactly the usages at the brand's prices (reasoning is output). */
  async function billed(model: keyof typeof PRICES, endpoint: string, usages: readonly CallUsage[], fn: () => Promise<unknown>): Promise<void> {
    const { sum, row } = await assertPaidForUsages(g, acct.id, PRICES[model], usages, fn);
    assert.equal(row.endpoint, endpoint);
    assert.equal(row.model, model);
    assert.equal(row.output_tokens, sum.output);
  }

  for (const kind of KINDS) {
    describe(`${kind.name} (${kind.model})`, () => {
      const usage = { input: 120, cached: 20, output: 200 };

      it('responses.create: reasoning.effort reaches the upstream; a reasoning item with a summary; reasoning tokens in usage', async () => {
        kind.fake(g).chat.enqueue({ reasoning: THOUGHT, text: 'Paris.', usage, reasoningTokens: 30 });
        let r!: OpenAI.Responses.Response;
        await billed(kind.model, 'responses', [usage], async () => {
          r = await g.client(acct.key).responses.create({ model: kind.model, input: 'Capital of France?', max_output_tokens: 20000, reasoning: { effort: 'high', summary: 'auto' } });
        });
        const sent = lastBody(kind.fake(g));
        if (kind.model === 'svc-fast') {
          assert.equal(sent.reasoning_effort, 'high');
          assert.equal(sent.thinking, undefined);
        } else {
          // high is 16,384 tokens, but an effort's budget takes at most half of max_tokens.
          assert.deepEqual(sent.thinking, { type: 'enabled', budget_tokens: 10000 });
          assert.equal(sent.max_tokens, 20000);
          assert.equal(sent.reasoning_effort, undefined);
        }
        assert.deepEqual(r.reasoning, { effort: 'high', summary: 'auto' });
        assert.deepEqual(r.output.map((o) => o.type), ['reasoning', 'message']);
        const rs = r.output[0] as OpenAI.Responses.ResponseReasoningItem;
        assert.match(rs.id, /^rs_[A-Za-z0-9]{24}$/);
        assert.deepEqual(rs.summary, [{ type: 'summary_text', text: THOUGHT }]);
        assert.deepEqual(rs.content, [{ type: 'reasoning_text', text: THOUGHT }]);
        assert.equal(r.output_text, 'Paris.');
        assert.deepEqual(r.usage, {
          input_tokens: 120,
          input_tokens_details: { cached_tokens: 20 },
          output_tokens: 200,
          output_tokens_details: { reasoning_tokens: kind.reasoningTokens },
          total_tokens: 320,
        });
      });

      it('responses.stream: the reasoning summary and text stream with their documented events', async () => {
        kind.fake(g).chat.enqueue({ reasoning: THOUGHT, text: 'Paris, streamed.', usage, reasoningTokens: 30 });
        const events: (OpenAI.Responses.ResponseStreamEvent & { sequence_number: number })[] = [];
        let final!: OpenAI.Responses.Response;
        await billed(kind.model, 'responses', [usage], async () => {
          const stream = g.client(acct.key).responses.stream({ model: kind.model, input: 'Capital of France?', reasoning: { effort: 'low' } });
          stream.on('event', (e) => events.push(e as never));
          final = await stream.finalResponse();
        });
        const sent = lastBody(kind.fake(g));
        if (kind.model === 'svc-fast') assert.equal(sent.reasoning_effort, 'low');
        else assert.deepEqual(sent.thinking, { type: 'enabled', budget_tokens: 2048 });
        events.forEach((e, i) => assert.equal(e.sequence_number, i));
        const types = events.map((e) => e.type);
        const at = (t: string) => types.indexOf(t as never);
        assert.ok(at('response.output_item.added') < at('response.reasoning_summary_part.added'), types.join());
        assert.ok(at('response.reasoning_summary_part.added') < at('response.reasoning_summary_text.delta'));
        assert.ok(at('response.reasoning_summary_text.delta') < at('response.reasoning_summary_text.done'));
        assert.ok(at('response.reasoning_summary_text.done') < at('response.reasoning_summary_part.done'));
        assert.ok(at('response.reasoning_summary_part.done') < at('response.output_text.delta'), 'reasoning closes before the text');
        const deltas = events.filter((e): e is OpenAI.Responses.ResponseReasoningSummaryTextDeltaEvent & { sequence_number: number } => e.type === 'response.reasoning_summary_text.delta');
        assert.equal(deltas.map((d) => d.delta).join(''), THOUGHT);
        const item = final.output[0] as OpenAI.Responses.ResponseReasoningItem;
        assert.ok(deltas.every((d) => d.item_id === item.id && d.output_index === 0 && d.summary_index === 0));
        assert.deepEqual(item.summary, [{ type: 'summary_text', text: THOUGHT }]);
        assert.equal(final.usage!.output_tokens_details.reasoning_tokens, kind.reasoningTokens);
        assert.equal(final.usage!.output_tokens, 200);
      });

      it('effort none: no thinking on Anthropic, reasoning_effort none on OpenAI-style upstreams', async () => {
        const u = { input: 10, cached: 0, output: 3 };
        kind.fake(g).chat.enqueue({ text: 'Paris.', usage: u });
        await billed(kind.model, 'responses', [u], async () => {
          const r = await g.client(acct.key).responses.create({ model: kind.model, input: 'Capital of France?', reasoning: { effort: 'none' } });
          assert.equal(r.usage!.output_tokens_details.reasoning_tokens, 0);
          assert.equal(r.output.some((o) => o.type === 'reasoning'), false);
        });
        const sent = lastBody(kind.fake(g));
        assert.equal(sent.thinking, undefined);
        assert.equal(sent.reasoning_effort, kind.model === 'svc-fast' ? 'none' : undefined);
      });

      it('a function-tool loop with reasoning: both turns served, reasoning tokens summed over the turns', async () => {
        const u1 = { input: 80, cached: 0, output: 60 };
        const u2 = { input: 150, cached: 40, output: 25 };
        kind.fake(g).chat.enqueue({ reasoning: THOUGHT, toolCalls: [{ name: 'get_weather', arguments: { city: 'Paris' } }], usage: u1, reasoningTokens: 30 }, { text: 'Sunny in Paris.', usage: u2 });
        const tools: OpenAI.Responses.FunctionTool[] = [{ type: 'function', name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } }, strict: false }];
        let first!: OpenAI.Responses.Response;
        await billed(kind.model, 'responses', [u1], async () => {
          first = await g.client(acct.key).responses.create({ model: kind.model, input: 'Weather in Paris?', tools, reasoning: { effort: 'medium' }, max_output_tokens: 30000 });
        });
        assert.deepEqual(first.output.map((o) => o.type), ['reasoning', 'function_call']);
        assert.equal(first.usage!.output_tokens_details.reasoning_tokens, kind.reasoningTokens);
        const call = first.output[1] as OpenAI.Responses.ResponseFunctionToolCall;
        let second!: OpenAI.Responses.Response;
        await billed(kind.model, 'responses', [u2], async () => {
          second = await g.client(acct.key).responses.create({
            model: kind.model,
            previous_response_id: first.id,
            input: [{ type: 'function_call_output', call_id: call.call_id, output: '{"sky":"sunny"}' }],
            tools,
            reasoning: { effort: 'medium' },
            max_output_tokens: 30000,
          });
        });
        assert.equal(second.output_text, 'Sunny in Paris.');
        assert.equal(second.usage!.output_tokens_details.reasoning_tokens, 0);
        const sent = lastBody(kind.fake(g));
        if (kind.model === 'svc-vision') {
          // The API refuses thinking on a tool-use continuation without the turn's signed thinking
          // block (the fake enforces it); the stored reasoning item carries it, so thinking stays on.
          assert.deepEqual(sent.thinking, { type: 'enabled', budget_tokens: 8192 });
          assert.deepEqual((sent.messages as { content: unknown[] }[])[1]!.content[0], { type: 'thinking', thinking: THOUGHT, signature: 'EqQBfakeanthropicsignature' });
          assert.deepEqual(lastBody(kind.fake(g)).max_tokens, 30000);
        } else {
          assert.equal(sent.reasoning_effort, 'medium');
        }
      });

      it('chat completions: reasoning_effort reaches the upstream and completion_tokens_details.reasoning_tokens comes back, streamed and not', async () => {
        kind.fake(g).chat.enqueue({ reasoning: THOUGHT, text: 'Paris.', usage, reasoningTokens: 30 });
        await billed(kind.model, 'chat.completions', [usage], async () => {
          const r = await g.client(acct.key).chat.completions.create({ model: kind.model, max_tokens: 8000, reasoning_effort: 'low', messages: [{ role: 'user', content: 'Capital of France?' }] });
          assert.equal(r.choices[0]!.message.content, 'Paris.');
          assert.deepEqual(r.usage, {
            prompt_tokens: 120,
            completion_tokens: 200,
            total_tokens: 320,
            prompt_tokens_details: { cached_tokens: 20 },
            completion_tokens_details: { reasoning_tokens: kind.reasoningTokens },
          });
        });
        let sent = lastBody(kind.fake(g));
        if (kind.model === 'svc-fast') assert.equal(sent.reasoning_effort, 'low');
        else assert.deepEqual(sent.thinking, { type: 'enabled', budget_tokens: 2048 });

        kind.fake(g).chat.enqueue({ reasoning: THOUGHT, text: 'Paris, streamed.', usage, reasoningTokens: 30 });
        await billed(kind.model, 'chat.completions', [usage], async () => {
          const stream = await g.client(acct.key).chat.completions.create({
            model: kind.model,
            reasoning_effort: 'minimal',
            stream: true,
            stream_options: { include_usage: true },
            messages: [{ role: 'user', content: 'Capital of France?' }],
          });
          let text = '';
          let last: OpenAI.Chat.Completions.ChatCompletionChunk | undefined;
          for await (const c of stream) {
            text += c.choices[0]?.delta.content ?? '';
            last = c;
          }
          assert.equal(text, 'Paris, streamed.');
          assert.deepEqual(last!.usage!.completion_tokens_details, { reasoning_tokens: kind.reasoningTokens });
          assert.equal(last!.usage!.completion_tokens, 200);
        });
        sent = lastBody(kind.fake(g));
        if (kind.model === 'svc-fast') assert.equal(sent.reasoning_effort, 'minimal');
        else assert.deepEqual(sent.thinking, { type: 'enabled', budget_tokens: 1024 });
      });
    });
  }

  /**
   * Anthropic thinking through /v1/responses (svc-vision): the reasoning item carries the signed
   * thinking and redacted thinking blocks (as encrypted_content when asked for, and always in the
   * stored item), so a function-tool continuation sends them back and keeps thinking on. The fake
   * refuses a tool-use continuation with thinking on whose last assistant turn does not start with
   * a thinking block, and any thinking block it did not sign (text or signature changed) or
   * redacted data it did not give out, as the API does.
   */
  describe('Anthropic thinking signatures through /v1/responses', () => {
    const REDACTED = 'EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpP';
    const tools: OpenAI.Responses.FunctionTool[] = [{ type: 'function', name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } }, strict: false }];
    const firstTurn = { reasoning: THOUGHT, redactedThinking: REDACTED, toolCalls: [{ name: 'get_weather', arguments: { city: 'Paris' } }], usage: { input: 80, cached: 0, output: 60 } };
    const secondTurn = { reasoning: 'The tool says sunny.', text: 'Sunny in Paris.', usage: { input: 150, cached: 40, output: 25 } };
    const base = { model: 'svc-vision', tools, reasoning: { effort: 'medium' as const }, max_output_tokens: 30000 };

    async function create(stream: boolean, params: OpenAI.Responses.ResponseCreateParamsNonStreaming): Promise<OpenAI.Responses.Response> {
      const client = g.client(acct.key);
      return stream ? client.responses.stream(params as Parameters<typeof client.responses.stream>[0]).finalResponse() : client.responses.create(params);
    }

    /** What the fake got for the continuation: thinking on, and the first turn's blocks back first, unchanged. */
    function assertSignedBlocksWentBack(): void {
      const sent = lastBody(g.anthropic);
      assert.deepEqual(sent.thinking, { type: 'enabled', budget_tokens: 8192 });
      const msgs = sent.messages as { role: string; content: { type: string }[] }[];
      assert.deepEqual(msgs.map((m) => m.role), ['user', 'assistant', 'user']);
      const assistant = msgs[1]!.content;
      assert.deepEqual(assistant.slice(0, 2), [
        { type: 'thinking', thinking: THOUGHT, signature: 'EqQBfakeanthropicsignature' },
        { type: 'redacted_thinking', data: REDACTED },
      ]);
      assert.equal(assistant[2]!.type, 'tool_use');
    }

    /** Nothing recognisable of the upstream in an answer, encrypted_content included. */
    function assertNoUpstreamForms(r: OpenAI.Responses.Response): void {
      const text = JSON.stringify(r);
      for (const s of ['EqQB', 'fakeanthropic', 'toolu_', 'claude', 'redacted_thinking', REDACTED.slice(0, 12)]) assert.ok(!text.includes(s), s);
    }

    for (const stream of [false, true]) {
      const s = stream ? 'streamed' : 'not streamed';

      it(`previous_response_id (${s}): the stored reasoning item sends the signed blocks back; none shown without include`, async () => {
        g.anthropic.chat.enqueue(firstTurn, secondTurn);
        let first!: OpenAI.Responses.Response;
        await billed('svc-vision', 'responses', [firstTurn.usage], async () => {
          first = await create(stream, { ...base, input: 'Weather in Paris?' });
        });
        assert.deepEqual(first.output.map((o) => o.type), ['reasoning', 'function_call']);
        const rs = first.output[0] as OpenAI.Responses.ResponseReasoningItem;
        assert.deepEqual(rs.summary, [{ type: 'summary_text', text: THOUGHT }]);
        assert.equal('encrypted_content' in rs, false, 'not asked for');
        assertNoUpstreamForms(first);
        const call = first.output[1] as OpenAI.Responses.ResponseFunctionToolCall;
        let second!: OpenAI.Responses.Response;
        await billed('svc-vision', 'responses', [secondTurn.usage], async () => {
          second = await create(stream, { ...base, previous_response_id: first.id, input: [{ type: 'function_call_output', call_id: call.call_id, output: '{"sky":"sunny"}' }] });
        });
        assertSignedBlocksWentBack();
        assert.deepEqual(second.output.map((o) => o.type), ['reasoning', 'message']);
        assert.equal(second.usage!.output_tokens_details.reasoning_tokens, countTextTokens('The tool says sunny.'));
      });

      it(`stateless (${s}): store false with include reasoning.encrypted_content, the items sent back carry the blocks`, async () => {
        g.anthropic.chat.enqueue(firstTurn, secondTurn);
        const first = await create(stream, { ...base, input: 'Weather in Paris?', store: false, include: ['reasoning.encrypted_content'] });
        const rs = first.output[0] as OpenAI.Responses.ResponseReasoningItem;
        assert.equal(rs.type, 'reasoning');
        assert.match(rs.encrypted_content!, /^[A-Za-z0-9_-]{40,}$/);
        assertNoUpstreamForms(first);
        const call = first.output[1] as OpenAI.Responses.ResponseFunctionToolCall;
        const second = await create(stream, {
          ...base,
          store: false,
          include: ['reasoning.encrypted_content'],
          input: [{ role: 'user', content: 'Weather in Paris?' }, ...(first.output as OpenAI.Responses.ResponseInputItem[]), { type: 'function_call_output', call_id: call.call_id, output: '{"sky":"sunny"}' }],
        });
        assertSignedBlocksWentBack();
        assert.equal((second.output[1] as OpenAI.Responses.ResponseOutputMessage).content[0]!.type, 'output_text');
        assert.equal(typeof (second.output[0] as OpenAI.Responses.ResponseReasoningItem).encrypted_content, 'string');
      });
    }

    it('stored items sent back by id without encrypted_content (no include, no previous_response_id) are completed from the store', async () => {
      g.anthropic.chat.enqueue(firstTurn, secondTurn);
      const first = await create(false, { ...base, input: 'Weather in Paris?' });
      const call = first.output[1] as OpenAI.Responses.ResponseFunctionToolCall;
      const second = await create(true, {
        ...base,
        input: [{ role: 'user', content: 'Weather in Paris?' }, ...(first.output as OpenAI.Responses.ResponseInputItem[]), { type: 'function_call_output', call_id: call.call_id, output: '{"sky":"sunny"}' }],
      });
      assertSignedBlocksWentBack();
      assert.equal(second.status, 'completed');
    });

    it('reasoning items without their blocks (store false, not included) continue without thinking, as the API requires', async () => {
      g.anthropic.chat.enqueue(firstTurn, secondTurn);
      const first = await create(false, { ...base, input: 'Weather in Paris?', store: false });
      const call = first.output[1] as OpenAI.Responses.ResponseFunctionToolCall;
      const second = await create(false, {
        ...base,
        store: false,
        input: [{ role: 'user', content: 'Weather in Paris?' }, ...(first.output as OpenAI.Responses.ResponseInputItem[]), { type: 'function_call_output', call_id: call.call_id, output: '{"sky":"sunny"}' }],
      });
      assert.equal(second.status, 'completed');
      const sent = lastBody(g.anthropic);
      assert.equal(sent.thinking, undefined);
      assert.equal((sent.messages as { content: { type: string }[] }[])[1]!.content[0]!.type, 'tool_use');
    });

    it('an encrypted_content this service did not issue is a 400 naming the field', async () => {
      await assert.rejects(
        create(false, { ...base, input: [{ role: 'user', content: 'x' }, { type: 'reasoning', id: 'rs_x', summary: [], encrypted_content: 'gAAAAABoNotOurs' }] }),
        (e: unknown) => e instanceof OpenAI.BadRequestError && JSON.stringify(e.error).includes('input[1].encrypted_content: is not reasoning content this service issued'),
      );
    });
  });

  it('messages: output_config.effort reaches an OpenAI-style upstream as reasoning_effort; a thinking budget alone does not', async () => {
    const client = new Anthropic({ apiKey: acct.key, baseURL: `${g.t.url}/inference`, maxRetries: 0 });
    const u = { input: 15, cached: 0, output: 40 };
    g.openai.chat.enqueue({ reasoning: THOUGHT, text: 'Paris.', usage: u, reasoningTokens: 25 });
    await billed('svc-fast', 'messages', [u], async () => {
      const m = await client.messages.create({ model: 'svc-fast', max_tokens: 500, output_config: { effort: 'high' }, messages: [{ role: 'user', content: 'Capital?' }] } as never);
      assert.deepEqual((m as Anthropic.Message).content[0], { type: 'thinking', thinking: THOUGHT, signature: '' });
    });
    assert.equal(lastBody(g.openai).reasoning_effort, 'high');
    g.openai.chat.enqueue({ text: 'Paris.', usage: u });
    await billed('svc-fast', 'messages', [u], () =>
      client.messages.create({ model: 'svc-fast', max_tokens: 4000, thinking: { type: 'enabled', budget_tokens: 2000 }, messages: [{ role: 'user', content: 'Capital?' }] }),
    );
    assert.equal('reasoning_effort' in lastBody(g.openai), false);
  });

  it('the Vercel AI SDK OpenAI provider reads the reasoning summary, unmodified, streamed and not', async () => {
    const provider = createOpenAI({ baseURL: `${g.t.url}/v1`, apiKey: acct.key });
    const u = { input: 15, cached: 0, output: 40 };
    g.anthropic.chat.enqueue({ reasoning: THOUGHT, text: 'Paris.', usage: u });
    await billed('svc-vision', 'responses', [u], async () => {
      const r = await generateText({ model: provider('svc-vision'), prompt: 'Capital of France?' });
      assert.equal(r.reasoningText, THOUGHT);
      assert.equal(r.text, 'Paris.');
      assert.equal(r.usage.outputTokenDetails.reasoningTokens, countTextTokens(THOUGHT));
    });
    g.openai.chat.enqueue({ reasoning: THOUGHT, text: 'Paris, streamed.', usage: u, reasoningTokens: 25 });
    await billed('svc-fast', 'responses', [u], async () => {
      const r = streamText({ model: provider('svc-fast'), prompt: 'Capital of France?' });
      let reasoning = '';
      for await (const p of r.fullStream) if (p.type === 'reasoning-delta') reasoning += p.text;
      assert.equal(reasoning, THOUGHT);
      assert.equal(await r.text, 'Paris, streamed.');
      assert.equal((await r.usage).outputTokenDetails.reasoningTokens, 25);
    });
  });

  it('a reasoning_effort the API does not know is a 400 naming the field', async () => {
    await assert.rejects(
      g.client(acct.key).chat.completions.create({ model: 'svc-fast', reasoning_effort: 'max' as never, messages: [{ role: 'user', content: 'x' }] }),
      (e: unknown) => e instanceof OpenAI.BadRequestError && JSON.stringify(e.error).includes('reasoning_effort: must be one of none, minimal, low, medium, high, xhigh'),
    );
    await assert.rejects(
      g.client(acct.key).responses.create({ model: 'svc-fast', input: 'x', reasoning: { effort: 'max' as never } }),
      (e: unknown) => e instanceof OpenAI.BadRequestError && JSON.stringify(e.error).includes('reasoning.effort: must be one of none, minimal, low, medium, high, xhigh'),
    );
  });
});

/**
 * A brand model with reasoning whose first deployment fails falls back to a deployment whose
 * upstream model has none. The fakes refuse reasoning parameters for such models with the 400 the
 * real APIs give (OpenAI `unsupported_parameter` for reasoning_effort, Anthropic "does not support
 * thinking"); the fallback's body must carry none, so the client gets the fallback's answer.
 * svc-pro: Anthropic, then OpenAI's gpt-4.1 (reasoning: false in the test catalog). svc-deep (this
 * file's own): an OpenAI-style reasoning model, then an Anthropic model without thinking.
 */
describe('reasoning: fallback deployments without reasoning get no reasoning parameters', () => {
  const NO_THINKING = 'claude-3-5-haiku-20241022';
  let g: Gateway;
  let acct: TestAccount;
  before(async () => {
    g = await startGateway({
      env: { RATE_LIMIT_INFERENCE_PER_MINUTE: '10000' },
      catalog: (f) =>
        catalogYaml(f).replace(
          'models:\n',
          `models:
  - id: svc-deep
    type: chat
    max_output: 100000
    pricing: { input: 3.20, cached_input: 0.80, output: 9.80 }
    capabilities: { reasoning: true }
    deployments:
      - { provider: main-openai, model: o4-mini }
      - { provider: main-anthropic, model: ${NO_THINKING}, reasoning: false }
`,
        ),
    });
    g.openai.nonReasoningModels.add(UPSTREAM_MODELS.proFallback);
    g.anthropic.nonThinkingModels.add(NO_THINKING);
    acct = await createTestAccount(g.t, { credits: 10_000 });
  });
  after(() => g.close());

  const primaryDown = { error: { status: 500, message: 'overloaded' } };

  /** The two requests the fallback made: the primary's (with reasoning) and the fallback's (without). */
  function lastTwo(primary: FakeServer, fallback: FakeServer): { first: Record<string, unknown>; second: Record<string, unknown> } {
    return { first: lastBody(primary), second: lastBody(fallback) };
  }

  let rows = 0;
  beforeEach(async () => {
    rows = (await usageRows(g.t, acct.id)).length;
  });

  /** The request was recorded (and billed) as served by this upstream model. */
  async function servedBy(upstreamModel: string): Promise<void> {
    const row = (await waitForUsage(g.t, acct.id, rows + 1))[0]!;
    assert.equal(row.upstream_model, upstreamModel);
    assert.equal(row.status, 200);
  }

  for (const stream of [false, true]) {
    const s = stream ? 'streamed' : 'not streamed';

    it(`chat completions (${s}): reasoning_effort reaches the Anthropic primary as thinking, not the gpt-4.1 fallback`, async () => {
      g.anthropic.chat.enqueue(primaryDown);
      g.openai.chat.enqueue({ text: 'Fallback answer.' });
      const client = g.client(acct.key);
      const params = { model: 'svc-pro', max_tokens: 8000, reasoning_effort: 'high' as const, messages: [{ role: 'user' as const, content: 'Capital of France?' }] };
      let text = '';
      if (stream) {
        for await (const c of await client.chat.completions.create({ ...params, stream: true })) text += c.choices[0]?.delta.content ?? '';
      } else {
        text = (await client.chat.completions.create(params)).choices[0]!.message.content!;
      }
      assert.equal(text, 'Fallback answer.');
      const { first, second } = lastTwo(g.anthropic, g.openai);
      assert.deepEqual(first.thinking, { type: 'enabled', budget_tokens: 4000 });
      assert.equal(second.model, UPSTREAM_MODELS.proFallback);
      assert.equal('reasoning_effort' in second, false);
      await servedBy(UPSTREAM_MODELS.proFallback);
    });

    it(`responses (${s}): reasoning.effort is not sent to the gpt-4.1 fallback; the answer has no reasoning item`, async () => {
      g.anthropic.chat.enqueue(primaryDown);
      g.openai.chat.enqueue({ text: 'Fallback answer.' });
      const client = g.client(acct.key);
      const params = { model: 'svc-pro', input: 'Capital of France?', reasoning: { effort: 'medium' as const } };
      const r = stream ? await client.responses.stream(params).finalResponse() : await client.responses.create(params);
      assert.equal(r.status, 'completed');
      // The SDK computes output_text only for responses.create.
      assert.deepEqual(r.output.flatMap((o) => (o.type === 'message' ? o.content : [])).map((c) => (c.type === 'output_text' ? c.text : '')), ['Fallback answer.']);
      assert.deepEqual(r.output.map((o) => o.type), ['message']);
      assert.deepEqual(r.reasoning, { effort: 'medium', summary: null });
      const { first, second } = lastTwo(g.anthropic, g.openai);
      assert.ok(first.thinking !== undefined, 'the primary was asked to think');
      assert.equal('reasoning_effort' in second, false);
      await servedBy(UPSTREAM_MODELS.proFallback);
    });

    it(`messages (${s}): output_config.effort is not sent to the gpt-4.1 fallback`, async () => {
      g.anthropic.chat.enqueue(primaryDown);
      g.openai.chat.enqueue({ text: 'Fallback answer.' });
      const client = new Anthropic({ apiKey: acct.key, baseURL: `${g.t.url}/inference`, maxRetries: 0 });
      const params = { model: 'svc-pro', max_tokens: 4000, output_config: { effort: 'high' }, messages: [{ role: 'user' as const, content: 'Capital?' }] } as never as Anthropic.MessageCreateParamsNonStreaming;
      const m = stream ? await client.messages.stream(params).finalMessage() : await client.messages.create(params);
      assert.deepEqual(m.content, [{ type: 'text', text: 'Fallback answer.' }]);
      const { first, second } = lastTwo(g.anthropic, g.openai);
      assert.ok(first.thinking !== undefined, 'the primary was asked to think');
      assert.equal('reasoning_effort' in second, false);
      await servedBy(UPSTREAM_MODELS.proFallback);
    });

    it(`an Anthropic fallback without thinking (${s}): no thinking parameter, no thinking blocks in the history`, async () => {
      g.openai.chat.enqueue(primaryDown);
      g.anthropic.chat.enqueue({ text: 'Fallback answer.' });
      const client = new Anthropic({ apiKey: acct.key, baseURL: `${g.t.url}/inference`, maxRetries: 0 });
      const params: Anthropic.MessageCreateParamsNonStreaming = {
        model: 'svc-deep',
        max_tokens: 4000,
        thinking: { type: 'enabled', budget_tokens: 2000 },
        output_config: { effort: 'low' },
        messages: [
          { role: 'user', content: 'Greet me' },
          { role: 'assistant', content: [{ type: 'thinking', thinking: 'A greeting.', signature: sealBlockValue('signature', 'sig-from-before', createReasoningSealers(g.t.deps.secretsKey)(acct.id)) }, { type: 'text', text: 'Hi!' }] },
          { role: 'user', content: 'Again' },
        ],
      } as never;
      const m = stream ? await client.messages.stream(params).finalMessage() : await client.messages.create(params);
      assert.deepEqual(m.content, [{ type: 'text', text: 'Fallback answer.' }]);
      const { first, second } = lastTwo(g.openai, g.anthropic);
      assert.equal(first.reasoning_effort, 'low');
      assert.equal(second.model, NO_THINKING);
      assert.equal('thinking' in second, false);
      assert.deepEqual((second.messages as { content: unknown }[])[1]!.content, [{ type: 'text', text: 'Hi!' }]);
      await servedBy(NO_THINKING);
    });
  }

  it('responses with reasoning.effort on svc-deep: the Anthropic fallback gets no thinking', async () => {
    g.openai.chat.enqueue(primaryDown);
    g.anthropic.chat.enqueue({ text: 'Fallback answer.' });
    const r = await g.client(acct.key).responses.create({ model: 'svc-deep', input: 'Capital of France?', reasoning: { effort: 'high' }, max_output_tokens: 8000 });
    assert.equal(r.output_text, 'Fallback answer.');
    assert.equal(lastBody(g.openai).reasoning_effort, 'high');
    assert.equal('thinking' in lastBody(g.anthropic), false);
    await servedBy(NO_THINKING);
  });

  it('the same request on the brand model whose deployment reasons still carries reasoning (no fallback)', async () => {
    g.anthropic.chat.enqueue({ reasoning: THOUGHT, text: 'Paris.' });
    const r = await g.client(acct.key).chat.completions.create({ model: 'svc-pro', max_tokens: 8000, reasoning_effort: 'high', messages: [{ role: 'user', content: 'Capital of France?' }] });
    assert.equal(r.choices[0]!.message.content, 'Paris.');
    assert.deepEqual(lastBody(g.anthropic).thinking, { type: 'enabled', budget_tokens: 4000 });
  });
});
