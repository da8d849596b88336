import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { accountCredits, postJson, startWithSdks, usageRows, type Gateway } from './helpers/gateway.ts';
import type { TestAccount } from './helpers/inference.ts';
import { auditRequests } from './helpers/spec-audit.ts';

/**
 * Findings of an eighteenth audit of the inference API, tried with the official `openai` and
 * `@anthropic-ai/sdk` clients and plain HTTP (docs/api-decisions.md, "Inference: eighteenth audit").
 */
describe('inference API, eighteenth audit', () => {
  let g: Gateway;
  let acct: TestAccount;
  let openai: OpenAI;
  let anthropic: Anthropic;

  before(async () => void ({ g, acct, openai, anthropic } = await startWithSdks()));
  after(() => g.close());

  const { refused } = auditRequests(() => ({ g, key: acct.key }));

  describe('messages: at most four cache_control markers', () => {
    const mark = { type: 'ephemeral' as const };
    const tool = { name: 'lookup', description: 'look up', input_schema: { type: 'object' as const, properties: {} } };
    /** Five markers: a tool, the system prompt, two user blocks and a block inside a tool result. */
    const five = (model: string) => ({
      model,
      max_tokens: 50,
      tools: [{ ...tool, cache_control: mark }],
      system: [{ type: 'text', text: 'Be brief.', cache_control: mark }],
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'look it up', cache_control: mark }] },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'lookup', input: {} }] },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 'toolu_1', content: [{ type: 'text', text: 'found', cache_control: mark }] },
            { type: 'text', text: 'and so?', cache_control: mark },
          ],
        },
      ],
    });
    const FIVE = 'A maximum of 4 blocks with cache_control may be provided. Found 5.';

    for (const model of ['svc-vision', 'svc-fast']) {
      it(`a fifth marker is a 400 in the service's shape on ${model}, before any upstream call or credit hold`, async () => {
        const balance = await accountCredits(g.t, acct.id);
        const rows = (await usageRows(g.t, acct.id)).length;
        await refused('/inference/v1/messages', five(model), FIVE);
        await refused('/inference/v1/messages', { ...five(model), stream: true }, FIVE);
        await refused('/inference/v1/messages/count_tokens', { ...five(model), max_tokens: undefined }, FIVE);
        await assert.rejects(
          anthropic.messages.create(five(model) as unknown as Anthropic.MessageCreateParamsNonStreaming),
          (err: unknown) => err instanceof Anthropic.BadRequestError && err.message.includes(FIVE),
        );
        assert.deepEqual(await accountCredits(g.t, acct.id), balance);
        assert.equal((await usageRows(g.t, acct.id)).length, rows);
      });
    }

    it('four markers are answered, and an Anthropic upstream gets all four', async () => {
      const four = five('svc-vision');
      four.tools = [tool] as typeof four.tools;
      g.anthropic.chat.enqueue({ text: 'ok' });
      const before = g.anthropic.requests.length;
      const r = await postJson(g, acct.key, '/inference/v1/messages', four);
      assert.equal(r.status, 200, await r.clone().text());
      assert.equal(JSON.stringify(g.anthropic.requests[before]!.body).split('"cache_control"').length - 1, 4);
    });

    it('a thread never fails on the markers of its earlier turns: the oldest carried ones are dropped', async () => {
      const upstream = () => g.anthropic.requests.at(-1)!.body as { tools: { cache_control?: unknown }[]; system: { cache_control?: unknown }[]; messages: { content: { cache_control?: unknown; text?: string }[] }[] };
      g.anthropic.chat.enqueue({ text: 'first' }, { text: 'second' }, { text: 'third' });
      // Turn one: three markers (tool, system, question).
      const first = await postJson(g, acct.key, '/inference/v1/messages', {
        model: 'svc-vision',
        max_tokens: 50,
        tools: [{ ...tool, cache_control: mark }],
        system: [{ type: 'text', text: 'Be brief.', cache_control: mark }],
        messages: [{ role: 'user', content: [{ type: 'text', text: 'one', cache_control: mark }] }],
        thread: { type: 'create' },
      });
      assert.equal(first.status, 200, await first.clone().text());
      const firstId = ((await first.json()) as { id: string }).id;
      // Turn two: two markers of its own; five with the thread's, so the tool's (the oldest) goes.
      const second = await postJson(g, acct.key, '/inference/v1/messages', {
        model: 'svc-vision',
        max_tokens: 50,
        messages: [{ role: 'user', content: [{ type: 'text', text: 'two', cache_control: mark }, { type: 'text', text: 'two more', cache_control: mark }] }],
        thread: { type: 'continue', previous_message_id: firstId },
      });
      assert.equal(second.status, 200, await second.clone().text());
      const secondId = ((await second.json()) as { id: string }).id;
      let sent = upstream();
      assert.equal(sent.tools[0]!.cache_control, undefined);
      assert.deepEqual(sent.system[0]!.cache_control, mark);
      assert.deepEqual(sent.messages.map((m) => m.content.filter((b) => b.cache_control !== undefined).length), [1, 0, 2]);
      // Turn three: four of its own; every carried marker goes, its own four stay.
      const third = await postJson(g, acct.key, '/inference/v1/messages', {
        model: 'svc-vision',
        max_tokens: 50,
        messages: [{ role: 'user', content: ['a', 'b', 'c', 'd'].map((text) => ({ type: 'text', text, cache_control: mark })) }],
        thread: { type: 'continue', previous_message_id: secondId },
      });
      assert.equal(third.status, 200, await third.clone().text());
      sent = upstream();
      assert.equal(JSON.stringify(sent).split('"cache_control"').length - 1, 4);
      assert.equal(sent.messages.at(-1)!.content.filter((b) => b.cache_control !== undefined).length, 4);
      // A turn that itself sends five is refused, naming its own count.
      await refused(
        '/inference/v1/messages',
        {
          model: 'svc-vision',
          max_tokens: 50,
          messages: [{ role: 'user', content: ['a', 'b', 'c', 'd', 'e'].map((text) => ({ type: 'text', text, cache_control: mark })) }],
          thread: { type: 'continue', previous_message_id: secondId },
        },
        FIVE,
      );
    });

    it('chat completions reads no cache_control: a content part carrying one is answered and nothing is sent on', async () => {
      g.anthropic.chat.enqueue({ text: 'ok' });
      const before = g.anthropic.requests.length;
      const parts = ['a', 'b', 'c', 'd', 'e'].map((text) => ({ type: 'text', text, cache_control: mark }));
      const r = await postJson(g, acct.key, '/v1/chat/completions', { model: 'svc-vision', messages: [{ role: 'user', content: parts }] });
      assert.equal(r.status, 200, await r.clone().text());
      assert.ok(!JSON.stringify(g.anthropic.requests[before]!.body).includes('cache_control'));
    });
  });

  describe('responses: reasoning.generate_summary, the deprecated name of reasoning.summary', () => {
    it('is read as summary and echoed under both names, created, streamed and retrieved', async () => {
      g.openai.chat.enqueue({ text: 'ok' }, { text: 'ok' });
      const r = await openai.responses.create({ model: 'svc-fast', input: 'hi', reasoning: { generate_summary: 'detailed' } });
      assert.deepEqual(r.reasoning, { effort: null, summary: 'detailed', generate_summary: 'detailed' });
      assert.deepEqual((await openai.responses.retrieve(r.id)).reasoning, r.reasoning);
      const stream = openai.responses.stream({ model: 'svc-fast', input: 'hi', reasoning: { effort: 'low', generate_summary: 'concise' } });
      const created: unknown[] = [];
      stream.on('response.created', (e) => created.push(e.response.reasoning));
      const done = await stream.finalResponse();
      assert.deepEqual(created, [{ effort: 'low', summary: 'concise', generate_summary: 'concise' }]);
      assert.deepEqual(done.reasoning, { effort: 'low', summary: 'concise', generate_summary: 'concise' });
    });

    it('given with summary it must agree; summary alone echoes no generate_summary', async () => {
      g.openai.chat.enqueue({ text: 'ok' }, { text: 'ok' });
      const both = await openai.responses.create({ model: 'svc-fast', input: 'hi', reasoning: { summary: 'auto', generate_summary: 'auto' } });
      assert.deepEqual(both.reasoning, { effort: null, summary: 'auto', generate_summary: 'auto' });
      const alone = await openai.responses.create({ model: 'svc-fast', input: 'hi', reasoning: { summary: 'auto' } });
      assert.deepEqual(alone.reasoning, { effort: null, summary: 'auto' });
      await assert.rejects(
        openai.responses.create({ model: 'svc-fast', input: 'hi', reasoning: { summary: 'auto', generate_summary: 'detailed' } }),
        (err: unknown) => err instanceof OpenAI.BadRequestError && err.message.includes('reasoning.generate_summary:'),
      );
      await refused(
        '/v1/responses',
        { model: 'svc-fast', input: 'hi', reasoning: { summary: 'auto', generate_summary: 'detailed' } },
        'reasoning.generate_summary: is the deprecated name of reasoning.summary and must not differ from it; send reasoning.summary alone',
      );
      await refused('/v1/responses', { model: 'svc-fast', input: 'hi', reasoning: { generate_summary: 'short' } }, 'reasoning.generate_summary: must be one of auto, concise, detailed');
      // null is absent, as for summary.
      g.openai.chat.enqueue({ text: 'ok' });
      const none = await openai.responses.create({ model: 'svc-fast', input: 'hi', reasoning: { generate_summary: null, summary: 'concise' } });
      assert.deepEqual(none.reasoning, { effort: null, summary: 'concise' });
    });
  });

  describe('images: stream', () => {
    it('stream: true is a 400 naming it, nothing sent upstream or charged; the SDK no longer ends on an empty stream', async () => {
      const balance = await accountCredits(g.t, acct.id);
      const rows = (await usageRows(g.t, acct.id)).length;
      const message = 'stream: streamed image generation is not supported; leave stream out to get the images as JSON';
      await refused('/v1/images/generations', { prompt: 'a cat', stream: true }, message);
      await refused('/v1/images/generations', { model: 'svc-image', prompt: 'a cat', stream: true, partial_images: 2 }, message);
      await assert.rejects(
        (async () => {
          const events = await openai.images.generate({ prompt: 'a cat', stream: true });
          for await (const _ of events) void _;
        })(),
        (err: unknown) => err instanceof OpenAI.BadRequestError && err.message.includes(message),
      );
      assert.deepEqual(await accountCredits(g.t, acct.id), balance);
      assert.equal((await usageRows(g.t, acct.id)).length, rows);
      // stream: false is the JSON answer, as before.
      const r = await postJson(g, acct.key, '/v1/images/generations', { prompt: 'a cat', stream: false, response_format: 'b64_json' });
      assert.equal(r.status, 200);
      assert.equal(((await r.json()) as { data: unknown[] }).data.length, 1);
    });
  });
});
