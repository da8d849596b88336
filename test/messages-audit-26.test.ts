import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import type OpenAI from 'openai';
import { postJson, startWithSdks, type Gateway } from './helpers/gateway.ts';
import { createTestAccount, type TestAccount } from './helpers/inference.ts';
import { auditRequests } from './helpers/spec-audit.ts';

/**
 * Findings of the session 26 audit of `/v1/messages` as an `@anthropic-ai/sdk` user sees it, against
 * both upstream kinds (docs/api-decisions.md, "Messages: session 26 audit").
 */
describe('messages, session 26 audit', () => {
  let g: Gateway;
  let acct: TestAccount;
  let anthropic: Anthropic;
  let openai: OpenAI;

  before(async () => void ({ g, acct, anthropic, openai } = await startWithSdks()));
  after(() => g.close());

  const { refused } = auditRequests(() => ({ g, key: acct.key }));
  const hi = [{ role: 'user' as const, content: 'hi' }];
  const lastAnthropicBody = () => g.anthropic.requests.at(-1)!.body as Record<string, unknown>;

  describe('errors', () => {
    it('the SDK types each status: 402 PaymentRequiredError, an upstream 529 as 529 OverloadedError (session 27), 429 RateLimitError with retry-after', async () => {
      const poor = await createTestAccount(g.t, { credits: 0 });
      const broke = new Anthropic({ apiKey: poor.key, baseURL: `${g.t.url}/inference`, maxRetries: 0 });
      await assert.rejects(broke.messages.create({ model: 'svc-fast', max_tokens: 10, messages: hi }), (e) => e instanceof Anthropic.PaymentRequiredError && e.status === 402);

      g.anthropic.chat.enqueue({ error: { status: 529, type: 'overloaded_error', message: 'Overloaded' } });
      await assert.rejects(anthropic.messages.create({ model: 'svc-vision', max_tokens: 10, messages: hi }), (e) => e instanceof Anthropic.OverloadedError && e.status === 529);

      g.anthropic.chat.enqueue({ error: { status: 429, type: 'rate_limit_error', message: 'slow down', headers: { 'retry-after': '7' } } });
      await assert.rejects(
        anthropic.messages.create({ model: 'svc-vision', max_tokens: 10, messages: hi }),
        (e) => e instanceof Anthropic.RateLimitError && e.headers?.get('retry-after') === '7',
      );
    });
  });

  describe('top-level cache_control', () => {
    it('marks the last block of the request, as the API applies it, checked like any marker; an OpenAI-compatible upstream ignores it', async () => {
      g.anthropic.chat.enqueue({ text: 'ok', usage: { input: 3000, cached: 0, output: 5, written: 2900 } });
      const m = await anthropic.messages.create({
        model: 'svc-vision',
        max_tokens: 50,
        cache_control: { type: 'ephemeral', ttl: '1h' },
        system: 'A long system prompt.',
        messages: [{ role: 'user', content: [{ type: 'text', text: 'first' }, { type: 'text', text: 'a long document' }] }],
      });
      assert.equal(m.usage.cache_creation_input_tokens, 2900);
      const sent = lastAnthropicBody() as { messages: { content: unknown }[]; cache_control?: unknown };
      assert.deepEqual(sent.messages[0]!.content, [{ type: 'text', text: 'first' }, { type: 'text', text: 'a long document', cache_control: { type: 'ephemeral', ttl: '1h' } }]);
      assert.equal(sent.cache_control, undefined);

      // A tool result as the last block gets it; a last block with its own marker keeps its own.
      g.anthropic.chat.enqueue({ text: 'ok' });
      await anthropic.messages.create({
        model: 'svc-vision',
        max_tokens: 50,
        cache_control: { type: 'ephemeral' },
        tools: [{ name: 'get', input_schema: { type: 'object' } }],
        messages: [
          ...hi,
          { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_a', name: 'get', input: {} }] },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_a', content: 'result' }] },
        ],
      });
      const last = (lastAnthropicBody().messages as { content: { cache_control?: unknown }[] }[]).at(-1)!;
      assert.deepEqual(last.content.at(-1)!.cache_control, { type: 'ephemeral' });
      g.anthropic.chat.enqueue({ text: 'ok' });
      await anthropic.messages.create({
        model: 'svc-vision',
        max_tokens: 50,
        cache_control: { type: 'ephemeral' },
        messages: [{ role: 'user', content: [{ type: 'text', text: 'x', cache_control: { type: 'ephemeral', ttl: '1h' } }] }],
      });
      assert.deepEqual((lastAnthropicBody().messages as { content: unknown }[])[0]!.content, [{ type: 'text', text: 'x', cache_control: { type: 'ephemeral', ttl: '1h' } }]);

      await refused('/v1/messages', { model: 'svc-fast', max_tokens: 50, cache_control: { type: 'ephemeral', ttl: '1d' }, messages: hi }, 'cache_control.ttl: must be one of 5m, 1h');
      // It takes one of the four places when it marks a block.
      const four = [1, 2, 3, 4].map((i) => ({ type: 'text', text: `t${i}`, cache_control: { type: 'ephemeral' } }));
      await refused(
        '/v1/messages',
        { model: 'svc-vision', max_tokens: 50, cache_control: { type: 'ephemeral' }, messages: [{ role: 'user', content: [...four, { type: 'text', text: 'last' }] }] },
        'A maximum of 4 blocks with cache_control may be provided. Found 5.',
      );
      // A thread turn with it leaves it a place among the carried markers, as for the turn's own.
      g.anthropic.chat.enqueue({ text: 'ok' });
      const created = await postJson(g, acct.key, '/v1/messages', { model: 'svc-vision', max_tokens: 50, thread: { type: 'create' }, messages: [{ role: 'user', content: four }] });
      assert.equal(created.status, 200, await created.clone().text());
      const { id } = (await created.json()) as { id: string };
      g.anthropic.chat.enqueue({ text: 'ok' });
      const continued = await postJson(g, acct.key, '/v1/messages', { model: 'svc-vision', max_tokens: 50, cache_control: { type: 'ephemeral' }, thread: { type: 'continue', previous_message_id: id }, messages: hi });
      assert.equal(continued.status, 200, await continued.clone().text());
      const lastTurn = (lastAnthropicBody().messages as { content: { cache_control?: unknown }[] }[]).at(-1)!;
      assert.deepEqual(lastTurn.content.at(-1)!.cache_control, { type: 'ephemeral' });

      g.openai.chat.enqueue({ text: 'ok' });
      await anthropic.messages.create({ model: 'svc-fast', max_tokens: 50, cache_control: { type: 'ephemeral' }, messages: hi });
      assert.deepEqual((g.openai.requests.at(-1)!.body as { messages: unknown }).messages, [{ role: 'user', content: 'hi' }]);
    });
  });

  describe('stop_sequences', () => {
    it('a stop sequence of whitespace only is a 400 in the API words on every model, nothing sent upstream', async () => {
      for (const model of ['svc-fast', 'svc-vision']) {
        for (const stop of ['\n', ' ', '\n\n', ' \t']) {
          await refused('/v1/messages', { model, max_tokens: 50, stop_sequences: ['END', stop], messages: hi }, 'stop_sequences: each stop sequence must contain non-whitespace');
        }
      }
      await assert.rejects(
        anthropic.messages.create({ model: 'svc-vision', max_tokens: 50, stop_sequences: ['\n'], messages: hi }),
        (e) => e instanceof Anthropic.BadRequestError && e.status === 400,
      );
    });

    it('a stop sequence with whitespace around text reaches the upstream as given, and the one that matched is answered', async () => {
      g.anthropic.chat.enqueue({ text: 'Sure', stopSequence: '\nHuman:' });
      const m = await anthropic.messages.create({ model: 'svc-vision', max_tokens: 50, stop_sequences: ['\nHuman:'], messages: hi });
      assert.deepEqual(lastAnthropicBody().stop_sequences, ['\nHuman:']);
      assert.equal(m.stop_reason, 'stop_sequence');
      assert.equal(m.stop_sequence, '\nHuman:');
    });
  });

  describe('thinking', () => {
    it('top_p below 0.95 next to thinking is raised to 0.95 for an Anthropic upstream (which refuses less), and answered', async () => {
      // The SDK's 1.14 types have no sampling fields; raw HTTP sends them as older clients do.
      const thinking = { type: 'enabled', budget_tokens: 1024 };
      g.anthropic.chat.enqueue({ reasoning: 'Let me see', text: 'ok' });
      const r = await postJson(g, acct.key, '/inference/v1/messages', { model: 'svc-vision', max_tokens: 3000, top_p: 0.5, thinking, messages: hi });
      assert.equal(r.status, 200, await r.clone().text());
      assert.deepEqual(((await r.json()) as Anthropic.Message).content.map((b) => b.type), ['thinking', 'text']);
      assert.equal(lastAnthropicBody().top_p, 0.95);
      assert.deepEqual(lastAnthropicBody().thinking, thinking);

      g.anthropic.chat.enqueue({ reasoning: 'Let me see', text: 'ok' });
      const streamed = await postJson(g, acct.key, '/inference/v1/messages', { model: 'svc-vision', max_tokens: 3000, top_p: 0.97, thinking, stream: true, messages: hi });
      assert.match(await streamed.text(), /event: message_stop/);
      assert.equal(lastAnthropicBody().top_p, 0.97);

      // Without thinking the client's top_p is sent as it is.
      g.anthropic.chat.enqueue({ text: 'ok' });
      assert.equal((await postJson(g, acct.key, '/inference/v1/messages', { model: 'svc-vision', max_tokens: 100, top_p: 0.5, messages: hi })).status, 200);
      assert.equal(lastAnthropicBody().top_p, 0.5);

      // The adapter is shared: a chat completions client asking for reasoning with top_p is answered too.
      g.anthropic.chat.enqueue({ reasoning: 'Let me see', text: 'ok' });
      const c = await openai.chat.completions.create({ model: 'svc-vision', max_tokens: 3000, reasoning_effort: 'low', top_p: 0.5, messages: hi });
      assert.equal(c.choices[0]!.message.content, 'ok');
      assert.equal(lastAnthropicBody().top_p, 0.95);
    });

    it('a prefill next to thinking is answered without thinking by an Anthropic upstream (which refuses it), and with it when the turn starts with its thinking', async () => {
      const prefilled = [...hi, { role: 'assistant' as const, content: '{"answer":' }];
      g.anthropic.chat.enqueue({ text: ' 42}' });
      const m = await anthropic.messages.create({ model: 'svc-vision', max_tokens: 3000, thinking: { type: 'enabled', budget_tokens: 1024 }, messages: prefilled });
      assert.deepEqual(m.content, [{ type: 'text', text: ' 42}' }]);
      assert.equal(lastAnthropicBody().thinking, undefined);
      assert.deepEqual((lastAnthropicBody().messages as unknown[]).at(-1), { role: 'assistant', content: [{ type: 'text', text: '{"answer":' }] });

      // Streamed alike.
      g.anthropic.chat.enqueue({ text: ' 42}' });
      const s = await anthropic.messages.stream({ model: 'svc-vision', max_tokens: 3000, thinking: { type: 'enabled', budget_tokens: 1024 }, messages: prefilled }).finalMessage();
      assert.equal(s.stop_reason, 'end_turn');
      assert.equal(lastAnthropicBody().thinking, undefined);

      // A turn cut at max_tokens, continued with its own thinking block first, keeps thinking.
      g.anthropic.chat.enqueue({ reasoning: 'Counting', text: 'One, two', finish: 'length' });
      const cut = await anthropic.messages.create({ model: 'svc-vision', max_tokens: 3000, thinking: { type: 'enabled', budget_tokens: 1024 }, messages: hi });
      assert.equal(cut.stop_reason, 'max_tokens');
      g.anthropic.chat.enqueue({ text: ', three' });
      await anthropic.messages.create({ model: 'svc-vision', max_tokens: 3000, thinking: { type: 'enabled', budget_tokens: 1024 }, messages: [...hi, { role: 'assistant', content: cut.content }] });
      assert.deepEqual(lastAnthropicBody().thinking, { type: 'enabled', budget_tokens: 1024 });

      // A blank final assistant turn is no prefill (it is left out): thinking stays.
      g.anthropic.chat.enqueue({ reasoning: 'hm', text: 'ok' });
      await anthropic.messages.create({ model: 'svc-vision', max_tokens: 3000, thinking: { type: 'enabled', budget_tokens: 1024 }, messages: [...hi, { role: 'assistant', content: '' }] });
      assert.deepEqual(lastAnthropicBody().thinking, { type: 'enabled', budget_tokens: 1024 });
    });

    it('without max_tokens, a budget the model max output cannot stay above is a 400 naming both, not cut to leave a token', async () => {
      // svc-vision's max output is 200,000.
      for (const budget of [200_000, 5_000_000]) {
        await refused(
          '/v1/messages',
          { model: 'svc-vision', thinking: { type: 'enabled', budget_tokens: budget }, messages: hi },
          'thinking.budget_tokens: must be less than 200000, the max output of model svc-vision (max_tokens when it is not given)',
        );
      }
      // With max_tokens given the check is the API's own.
      await refused('/v1/messages', { model: 'svc-vision', max_tokens: 3000, thinking: { type: 'enabled', budget_tokens: 3000 }, messages: hi }, 'thinking.budget_tokens: must be less than max_tokens');
      // A budget below the max output keeps the default: 4,096 above the budget, at most the max output.
      g.anthropic.chat.enqueue({ reasoning: 'hm', text: 'ok' });
      await anthropic.messages.create({ model: 'svc-vision', thinking: { type: 'enabled', budget_tokens: 198_000 }, messages: hi } as unknown as Anthropic.MessageCreateParamsNonStreaming);
      assert.equal(lastAnthropicBody().max_tokens, 200_000);
      assert.deepEqual(lastAnthropicBody().thinking, { type: 'enabled', budget_tokens: 198_000 });
    });
  });
});
