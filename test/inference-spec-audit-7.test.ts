import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { postJson, startWithSdks, type Gateway } from './helpers/gateway.ts';
import type { TestAccount } from './helpers/inference.ts';

/**
 * Findings of a seventh audit of the inference API, tried as a new user would with the official
 * `openai` and `@anthropic-ai/sdk` clients and plain HTTP (docs/api-decisions.md, "Inference:
 * seventh audit").
 */
describe('inference API, seventh audit', () => {
  let g: Gateway;
  let acct: TestAccount;
  let anthropic: Anthropic;
  let openai: OpenAI;

  before(async () => void ({ g, acct, anthropic, openai } = await startWithSdks()));
  after(() => g.close());

  const CHAT_MODELS = ['svc-shiplow', 'svc-fast', 'svc-vision', 'svc-pro', 'svc-ultra', 'svc-auto'];
  const CREATED_AT = '2026-11-25T00:00:00Z';

  describe('the model list through the Anthropic SDK at {base_url}/inference', () => {
    it('lists every chat model with the fields of Anthropic\'s model objects: type, display_name, created_at', async () => {
      const seen: Anthropic.ModelInfo[] = [];
      for await (const m of anthropic.models.list()) seen.push(m);
      assert.deepEqual(seen.map((m) => m.id), CHAT_MODELS);
      for (const m of seen) {
        assert.equal(m.type, 'model', JSON.stringify(m));
        assert.equal(m.display_name, m.id, JSON.stringify(m));
        assert.equal(m.created_at, CREATED_AT, JSON.stringify(m));
        assert.equal(new Date(m.created_at).getTime() / 1000, (m as unknown as { created: number }).created);
      }
      const one = await anthropic.models.retrieve('svc-pro');
      assert.deepEqual({ id: one.id, type: one.type, display_name: one.display_name, created_at: one.created_at }, { id: 'svc-pro', type: 'model', display_name: 'svc-pro', created_at: CREATED_AT });
    });

    it('the list is one page, as Anthropic\'s list says it: has_more false, first_id and last_id', async () => {
      const page = await anthropic.models.list();
      assert.equal(page.has_more, false);
      assert.equal(page.first_id, 'svc-shiplow');
      assert.equal(page.last_id, 'svc-auto');
      assert.equal(page.hasNextPage(), false);
    });

    it('/v1 and /inference/v1 answer the same list, which the OpenAI SDK still reads as its own', async () => {
      const get = async (path: string) => (await fetch(`${g.t.url}${path}`, { headers: { authorization: `Bearer ${acct.key}` } })).json();
      const v1 = (await get('/v1/models')) as { object: string; data: Record<string, unknown>[]; has_more: boolean };
      assert.deepEqual(await get('/inference/v1/models'), v1);
      assert.equal(v1.object, 'list');
      assert.deepEqual(v1.data[1], {
        id: 'svc-fast',
        object: 'model',
        created: 1795564800,
        owned_by: 'svc',
        type: 'model',
        display_name: 'svc-fast',
        created_at: CREATED_AT,
      });
      assert.deepEqual(await get('/v1/models/svc-fast'), v1.data[1]);
      assert.deepEqual(await get('/inference/v1/models/svc-fast'), v1.data[1]);
      const ids: string[] = [];
      for await (const m of openai.models.list()) ids.push(m.id);
      assert.deepEqual(ids, CHAT_MODELS);
    });
  });

  describe('request ids as the Anthropic SDK reads them', () => {
    it('answers of the messages routes carry request-id, the x-request-id, so _request_id and APIError.requestID are set', async () => {
      g.anthropic.chat.enqueue({ text: 'ok' });
      const { data, response, request_id } = await anthropic.messages.create({ model: 'svc-vision', max_tokens: 50, messages: [{ role: 'user', content: 'hi' }] }).withResponse();
      assert.equal(data.content[0]!.type, 'text');
      assert.ok(request_id, 'request-id is set');
      assert.equal(request_id, response.headers.get('x-request-id'));
      assert.equal((data as { _request_id?: string | null })._request_id, request_id);

      g.openai.chat.enqueue({ text: 'ok' });
      const stream = anthropic.messages.stream({ model: 'svc-fast', max_tokens: 50, messages: [{ role: 'user', content: 'hi' }] });
      await stream.finalMessage();
      const streamed = (await stream.withResponse()).response;
      assert.equal(streamed.headers.get('request-id'), streamed.headers.get('x-request-id'));
      assert.ok(streamed.headers.get('request-id'));

      const counted = await anthropic.messages.countTokens({ model: 'svc-fast', messages: [{ role: 'user', content: 'hi' }] }).withResponse();
      assert.equal(counted.request_id, counted.response.headers.get('x-request-id'));

      const listed = await anthropic.models.list().withResponse();
      assert.equal(listed.request_id, listed.response.headers.get('x-request-id'));
    });

    it('a refusal carries it too (401, 400, 404), and a given x-request-id is the request-id', async () => {
      const stranger = new Anthropic({ apiKey: 'svk_nope', baseURL: `${g.t.url}/inference`, maxRetries: 0 });
      await assert.rejects(stranger.messages.create({ model: 'svc-fast', max_tokens: 5, messages: [{ role: 'user', content: 'hi' }] }), (e: unknown) => {
        assert.ok(e instanceof Anthropic.AuthenticationError);
        assert.match(String(e.requestID), /^[0-9a-f-]{36}$/);
        return true;
      });
      await assert.rejects(
        anthropic.messages.create({ model: 'svc-fast', max_tokens: 5, messages: [] }, { headers: { 'x-request-id': 'trace-7.1' } }),
        (e: unknown) => e instanceof Anthropic.BadRequestError && e.requestID === 'trace-7.1',
      );
      await assert.rejects(
        anthropic.messages.create({ model: 'claude-3', max_tokens: 5, messages: [{ role: 'user', content: 'hi' }] }),
        (e: unknown) => e instanceof Anthropic.NotFoundError && typeof e.requestID === 'string' && e.requestID.length > 0,
      );
      // Under /v1 as well (the same routes).
      const r = await postJson(g, acct.key, '/v1/messages', { model: 'svc-fast', messages: [] });
      assert.equal(r.status, 400);
      assert.equal(r.headers.get('request-id'), r.headers.get('x-request-id'));
    });

    it('the OpenAI protocols keep x-request-id alone, as OpenAI answers', async () => {
      g.openai.chat.enqueue({ text: 'ok' });
      const r = await postJson(g, acct.key, '/v1/chat/completions', { model: 'svc-fast', messages: [{ role: 'user', content: 'hi' }] });
      assert.equal(r.status, 200);
      assert.ok(r.headers.get('x-request-id'));
      assert.equal(r.headers.get('request-id'), null);
      const models = await fetch(`${g.t.url}/v1/models`, { headers: { authorization: `Bearer ${acct.key}` } });
      assert.equal(models.headers.get('request-id'), null);
    });
  });
  describe('parallel tool calls an OpenAI-compatible upstream streams interleaved', () => {
    // Every call's first chunk, then the argument fragments in turn: what OpenAI's chunk format
    // allows (fragments are keyed by index) and some servers of parallel calls send.
    const calls = [
      { name: 'weather', arguments: { city: 'Paris', unit: 'celsius' } },
      { name: 'time', arguments: { timezone: 'Europe/Paris', format: '24h' } },
      { name: 'news', arguments: { topic: 'weather in Paris today' } },
    ];
    const scenario = { toolCalls: calls, interleaveToolCalls: true };
    const weatherTools = calls.map((c) => ({ name: c.name, input_schema: { type: 'object' as const } }));

    it('a messages stream gives each tool_use block its whole input, every delta between its block\'s start and stop', async () => {
      g.openai.chat.enqueue(scenario);
      const stream = anthropic.messages.stream({ model: 'svc-fast', max_tokens: 500, tools: weatherTools, messages: [{ role: 'user', content: 'Weather, time and news?' }] });
      const events: Anthropic.RawMessageStreamEvent[] = [];
      stream.on('streamEvent', (e) => events.push(e));
      const message = await stream.finalMessage();
      assert.equal(message.stop_reason, 'tool_use');
      assert.deepEqual(
        message.content.map((b) => (b.type === 'tool_use' ? { name: b.name, input: b.input } : b.type)),
        calls.map((c) => ({ name: c.name, input: c.arguments })),
      );
      // Blocks follow each other: a delta only inside its open block, each index started and stopped once.
      let open: number | null = null;
      const started: number[] = [];
      for (const e of events) {
        if (e.type === 'content_block_start') {
          assert.equal(open, null, 'a block starts only after the previous one stopped');
          open = e.index;
          started.push(e.index);
        } else if (e.type === 'content_block_delta') assert.equal(e.index, open, 'a delta of the open block');
        else if (e.type === 'content_block_stop') {
          assert.equal(e.index, open);
          open = null;
        }
      }
      assert.deepEqual(started, [0, 1, 2]);
    });

    it('not streamed, and on chat completions and responses (streamed or not), the calls are whole too', async () => {
      g.openai.chat.enqueue(scenario);
      const m = await anthropic.messages.create({ model: 'svc-fast', max_tokens: 500, tools: weatherTools, messages: [{ role: 'user', content: 'Weather, time and news?' }] });
      assert.deepEqual(m.content.map((b) => (b.type === 'tool_use' ? b.input : b.type)), calls.map((c) => c.arguments));

      const chatTools = calls.map((c) => ({ type: 'function' as const, function: { name: c.name, parameters: { type: 'object' } } }));
      g.openai.chat.enqueue(scenario);
      const chat = await openai.chat.completions.stream({ model: 'svc-fast', tools: chatTools, messages: [{ role: 'user', content: 'Weather, time and news?' }] }).finalChatCompletion();
      assert.deepEqual(chat.choices[0]!.message.tool_calls!.map((c) => c.type === 'function' && [c.function.name, JSON.parse(c.function.arguments)]), calls.map((c) => [c.name, c.arguments]));

      const responseTools = calls.map((c) => ({ type: 'function' as const, name: c.name, parameters: { type: 'object' }, strict: false }));
      g.openai.chat.enqueue(scenario);
      const streamed = await openai.responses.stream({ model: 'svc-fast', input: 'Weather, time and news?', tools: responseTools }).finalResponse();
      g.openai.chat.enqueue(scenario);
      const plain = await openai.responses.create({ model: 'svc-fast', input: 'Weather, time and news?', tools: responseTools });
      for (const r of [streamed, plain]) {
        assert.deepEqual(r.output.map((o) => o.type === 'function_call' && [o.name, JSON.parse(o.arguments)]), calls.map((c) => [c.name, c.arguments]));
      }
    });
  });
});
