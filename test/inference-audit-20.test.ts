import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { accountCredits, expectedCost, postJson, PRICES, startGateway, startWithSdks, usageRows, type Gateway } from './helpers/gateway.ts';
import { createTestAccount, type TestAccount } from './helpers/inference.ts';
import { auditRequests } from './helpers/spec-audit.ts';

/**
 * Findings of a twentieth audit of the inference API, as a new developer with the official
 * `openai` and `@anthropic-ai/sdk` clients (docs/api-decisions.md, "Inference: twentieth audit").
 */
describe('inference API, twentieth audit', () => {
  let g: Gateway;
  let acct: TestAccount;
  let openai: OpenAI;
  let anthropic: Anthropic;

  before(async () => void ({ g, acct, openai, anthropic } = await startWithSdks()));
  after(() => g.close());

  const { refused } = auditRequests(() => ({ g, key: acct.key }));

  /** `run` moves the balance by exactly `cost` and adds one usage record with these tokens. */
  async function billed(run: () => Promise<void>, model: keyof typeof PRICES, usage: { input: number; cached?: number; output?: number }): Promise<void> {
    const before = await accountCredits(g.t, acct.id);
    const rows = (await usageRows(g.t, acct.id)).length;
    await run();
    const after = await accountCredits(g.t, acct.id);
    const now = await usageRows(g.t, acct.id);
    assert.equal(now.length, rows + 1, 'one usage record');
    const row = now[0]!;
    assert.equal(row.model, model);
    assert.deepEqual([row.input_tokens, row.cached_input_tokens, row.output_tokens], [usage.input, usage.cached ?? 0, usage.output ?? 0]);
    assert.equal(before.credits - after.credits, expectedCost(PRICES[model], usage));
    assert.equal(BigInt(row.cost_micro), expectedCost(PRICES[model], usage));
  }

  describe('SDK helpers, each billed the upstream usage', () => {
    it('openai chat.completions.stream and finalChatCompletion', async () => {
      await billed(async () => {
        g.openai.chat.enqueue({ text: 'Streamed whole.', usage: { input: 31, cached: 8, output: 6 } });
        const stream = openai.chat.completions.stream({ model: 'svc-fast', messages: [{ role: 'user', content: 'hi' }], stream_options: { include_usage: true } });
        const final = await stream.finalChatCompletion();
        assert.equal(final.choices[0]!.message.content, 'Streamed whole.');
        assert.equal(final.model, 'svc-fast');
        assert.deepEqual(final.usage && [final.usage.prompt_tokens, final.usage.completion_tokens, final.usage.prompt_tokens_details?.cached_tokens], [31, 6, 8]);
      }, 'svc-fast', { input: 31, cached: 8, output: 6 });
    });

    it('openai chat.completions.stream with a tool call, then the answer to its result', async () => {
      g.anthropic.chat.enqueue({ toolCalls: [{ name: 'lookup', arguments: { q: 'x' } }] });
      const tools = [{ type: 'function' as const, function: { name: 'lookup', parameters: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] } } }];
      const first = await openai.chat.completions.stream({ model: 'svc-vision', messages: [{ role: 'user', content: 'look x up' }], tools }).finalChatCompletion();
      const call = first.choices[0]!.message.tool_calls![0]!;
      assert.equal(call.type === 'function' && call.function.name, 'lookup');
      assert.deepEqual(call.type === 'function' && JSON.parse(call.function.arguments), { q: 'x' });
      assert.equal(first.choices[0]!.finish_reason, 'tool_calls');
    });

    it('openai completions.create streamed', async () => {
      await billed(async () => {
        g.openai.chat.enqueue({ text: ' there was a cat.', usage: { input: 20, cached: 0, output: 5 } });
        let text = '';
        for await (const c of await openai.completions.create({ model: 'svc-fast', prompt: 'Once upon a time', stream: true })) text += c.choices[0]?.text ?? '';
        assert.equal(text, ' there was a cat.');
      }, 'svc-fast', { input: 20, output: 5 });
    });

    it('openai chat.completions.parse with a plain json_schema', async () => {
      g.anthropic.chat.enqueue({ json: { city: 'Lima' } });
      const r = await openai.chat.completions.parse({
        model: 'svc-pro',
        messages: [{ role: 'user', content: 'a city' }],
        response_format: { type: 'json_schema', json_schema: { name: 'city', strict: true, schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false } } },
      });
      assert.deepEqual(r.choices[0]!.message.parsed, { city: 'Lima' });
    });

    it('openai chat.completions.parse with a strict function tool gives parsed_arguments', async () => {
      g.openai.chat.enqueue({ toolCalls: [{ name: 'add', arguments: { a: 2, b: 3 } }] });
      const r = await openai.chat.completions.parse({
        model: 'svc-fast',
        messages: [{ role: 'user', content: 'add 2 and 3' }],
        tools: [
          {
            type: 'function',
            function: { name: 'add', strict: true, parameters: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'], additionalProperties: false } },
          },
        ],
      });
      const call = r.choices[0]!.message.tool_calls?.[0];
      assert.deepEqual(call?.type === 'function' && call.function.parsed_arguments, { a: 2, b: 3 });
    });

    it('openai runTools streamed through two turns, and responses.stream finalResponse', async () => {
      g.openai.chat.enqueue({ toolCalls: [{ name: 'get_weather', arguments: { city: 'Paris' } }] }, { text: 'Sunny.' });
      const runner = openai.chat.completions.runTools({
        model: 'svc-fast',
        stream: true,
        messages: [{ role: 'user', content: 'weather in Paris?' }],
        tools: [{ type: 'function', function: { name: 'get_weather', description: 'weather', parameters: { type: 'object', properties: { city: { type: 'string' } } }, function: () => 'sunny', parse: JSON.parse } }],
      });
      assert.equal(await runner.finalContent(), 'Sunny.');
      await billed(async () => {
        g.openai.chat.enqueue({ text: 'resp text', usage: { input: 11, cached: 0, output: 3 } });
        const r = await openai.responses.stream({ model: 'svc-fast', input: 'hi' }).finalResponse();
        const message = r.output.find((o) => o.type === 'message');
        assert.equal(message?.type === 'message' && message.content[0]?.type === 'output_text' && message.content[0].text, 'resp text');
        assert.deepEqual(r.usage && [r.usage.input_tokens, r.usage.output_tokens], [11, 3]);
      }, 'svc-fast', { input: 11, output: 3 });
    });

    it('openai models.list iterated with the SDK paging', async () => {
      const ids: string[] = [];
      for await (const m of openai.models.list()) ids.push(m.id);
      for (const id of ['svc-shiplow', 'svc-fast', 'svc-vision', 'svc-pro', 'svc-ultra']) assert.ok(ids.includes(id), id);
      assert.ok(!ids.includes('svc-embed'));
    });

    it('anthropic messages.stream finalMessage', async () => {
      await billed(async () => {
        g.anthropic.chat.enqueue({ text: 'Hello from a stream.', usage: { input: 25, cached: 5, output: 4 } });
        const final = await anthropic.messages.stream({ model: 'svc-vision', max_tokens: 100, messages: [{ role: 'user', content: 'hi' }] }).finalMessage();
        assert.equal(final.content[0]?.type === 'text' && final.content[0].text, 'Hello from a stream.');
        assert.equal(final.model, 'svc-vision');
        assert.equal(final.stop_reason, 'end_turn');
      }, 'svc-vision', { input: 25, cached: 5, output: 4 });
    });

    for (const model of ['svc-fast', 'svc-vision'] as const) {
      it(`anthropic messages.stream with tool_use (input_json_delta), ${model}`, async () => {
        await billed(async () => {
          g[model === 'svc-fast' ? 'openai' : 'anthropic'].chat.enqueue({ toolCalls: [{ name: 'get_weather', arguments: { city: 'Paris', days: 3 } }], usage: { input: 33, cached: 0, output: 9 } });
          const deltas: string[] = [];
          const stream = anthropic.messages.stream({
            model,
            max_tokens: 200,
            messages: [{ role: 'user', content: 'weather?' }],
            tools: [{ name: 'get_weather', input_schema: { type: 'object', properties: { city: { type: 'string' }, days: { type: 'number' } } } }],
          });
          stream.on('inputJson', (partial) => deltas.push(partial));
          const final = await stream.finalMessage();
          const block = final.content.find((b) => b.type === 'tool_use');
          assert.ok(block && block.type === 'tool_use');
          assert.equal(block.name, 'get_weather');
          assert.deepEqual(block.input, { city: 'Paris', days: 3 });
          assert.ok(deltas.length > 0);
          assert.equal(final.stop_reason, 'tool_use');
        }, model, { input: 33, output: 9 });
      });
    }

    it('anthropic countTokens (nothing billed) and models.list under /inference', async () => {
      const balance = await accountCredits(g.t, acct.id);
      const rows = (await usageRows(g.t, acct.id)).length;
      const c = await anthropic.messages.countTokens({ model: 'svc-pro', messages: [{ role: 'user', content: 'hello there' }] });
      assert.ok(c.input_tokens > 0);
      assert.deepEqual(await accountCredits(g.t, acct.id), balance);
      assert.equal((await usageRows(g.t, acct.id)).length, rows);
      const ids: string[] = [];
      for await (const m of anthropic.models.list()) ids.push(m.id);
      assert.ok(ids.includes('svc-fast'), ids.join());
      const one = await anthropic.models.retrieve('svc-pro');
      assert.equal(one.id, 'svc-pro');
    });
  });

  describe('chat: a message\'s name follows OpenAI\'s pattern', () => {
    const NAME_ERROR = 'must be 1-64 letters, digits, underscores or dashes';
    const ask = (name: unknown, role = 'user') => ({ model: 'svc-fast', messages: [{ role: 'system', content: 'be brief' }, { role, content: 'hi', name }] });

    it('a name with a space, an accent, a symbol, none at all or over 64 characters is a 400 naming it, before any hold or upstream call', async () => {
      const balance = await accountCredits(g.t, acct.id);
      for (const name of ['Joe Nye', 'André', 'J@ck', 'a.b', '', 'x'.repeat(65)]) {
        for (const role of ['user', 'system', 'developer', 'assistant']) {
          await refused('/v1/chat/completions', ask(name, role), `messages[1].name: ${NAME_ERROR}`);
        }
        await refused('/v1/chat/completions', { ...ask(name), stream: true }, `messages[1].name: ${NAME_ERROR}`);
        await refused('/inference/v1/chat/completions', ask(name), `messages[1].name: ${NAME_ERROR}`);
      }
      await refused('/v1/chat/completions', ask(7), 'messages[1].name: must be a string');
      await assert.rejects(
        openai.chat.completions.create({ model: 'svc-fast', messages: [{ role: 'user', content: 'hi', name: 'Dr. Who' }] }),
        (err: unknown) => err instanceof OpenAI.BadRequestError && err.status === 400 && err.message.includes(`messages[0].name: ${NAME_ERROR}`),
      );
      assert.deepEqual(await accountCredits(g.t, acct.id), balance);
    });

    it('a called tool\'s name in the history follows the same rule as a declared tool\'s', async () => {
      const balance = await accountCredits(g.t, acct.id);
      const tools = [{ type: 'function', function: { name: 'lookup', parameters: { type: 'object', properties: {} } } }];
      const history = (call: Record<string, unknown>) => ({
        model: 'svc-vision',
        tools,
        messages: [
          { role: 'user', content: 'look it up' },
          { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', ...call }] },
          { role: 'tool', tool_call_id: 'call_1', content: 'found' },
        ],
      });
      for (const name of ['look up', 'functions.lookup', '', 'x'.repeat(65)]) {
        await refused('/v1/chat/completions', history({ type: 'function', function: { name, arguments: '{}' } }), `messages[1].tool_calls[0].function.name: ${NAME_ERROR}`);
        await refused('/v1/chat/completions', history({ type: 'custom', custom: { name, input: 'x' } }), `messages[1].tool_calls[0].custom.name: ${NAME_ERROR}`);
      }
      assert.deepEqual(await accountCredits(g.t, acct.id), balance);
    });

    it('letters, digits, underscores and dashes up to 64 are answered, and a tool message\'s name is not read', async () => {
      for (const name of ['alice', 'agent_2-B', 'x'.repeat(64), null]) {
        g.openai.chat.enqueue({ text: 'ok' });
        const r = await postJson(g, acct.key, '/v1/chat/completions', ask(name));
        assert.equal(r.status, 200, `${String(name)}: ${await r.clone().text()}`);
      }
      g.openai.chat.enqueue({ text: 'done' });
      const r = await openai.chat.completions.create({
        model: 'svc-fast',
        messages: [
          { role: 'user', content: 'look it up', name: 'bob' },
          { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'lookup', arguments: '{}' } }] },
          { role: 'tool', tool_call_id: 'call_1', content: 'found', name: 'lookup tool' } as OpenAI.ChatCompletionToolMessageParam,
        ],
        tools: [{ type: 'function', function: { name: 'lookup', parameters: { type: 'object', properties: {} } } }],
      });
      assert.equal(r.choices[0]!.message.content, 'done');
    });
  });

  describe('model and endpoint compatibility', () => {
    it('a model on an endpoint it does not serve, images to a model without vision, output and input over the model\'s', async () => {
      const img = { type: 'image_url', image_url: { url: 'https://example.com/cat.png' } };
      const hi = [{ role: 'user', content: 'hi' }];
      for (const [path, body, error] of [
        ['/v1/chat/completions', { model: 'svc-embed', messages: hi }, 'model svc-embed does not support /v1/chat/completions'],
        ['/v1/completions', { model: 'svc-rerank', prompt: 'hi' }, 'model svc-rerank does not support /v1/completions'],
        ['/v1/responses', { model: 'svc-embed', input: 'hi' }, 'model svc-embed does not support /v1/responses'],
        ['/v1/messages', { model: 'svc-embed', max_tokens: 5, messages: hi }, 'model svc-embed does not support /v1/messages'],
        ['/v1/embeddings', { model: 'svc-rerank', input: 'hi' }, 'model svc-rerank does not support /v1/embeddings'],
        ['/v1/embeddings', { model: 'svc-fast', input: 'hi' }, 'model svc-fast does not support /v1/embeddings'],
        ['/v1/rerank', { model: 'svc-embed', query: 'q', documents: ['a'] }, 'model svc-embed does not support /v1/rerank'],
        ['/v1/images/generations', { model: 'svc-fast', prompt: 'a cat' }, 'model svc-fast does not support /v1/images/generations'],
        ['/v1/chat/completions', { model: 'svc-fast', messages: [{ role: 'user', content: [{ type: 'text', text: 'what?' }, img] }] }, 'messages[0].content[1]: model svc-fast does not accept images'],
        ['/v1/chat/completions', { model: 'svc-pro', messages: [{ role: 'user', content: [{ type: 'text', text: 'what?' }, img] }] }, 'messages[0].content[1]: model svc-pro does not accept images'],
        ['/v1/messages', { model: 'svc-fast', max_tokens: 5, messages: [{ role: 'user', content: [{ type: 'text', text: 'what?' }, img] }] }, 'messages[0].content[1]: model svc-fast does not accept images'],
        ['/v1/chat/completions', { model: 'svc-shiplow', max_tokens: 32769, messages: hi }, 'max_tokens: must be <= 32768 for model svc-shiplow'],
        ['/v1/responses', { model: 'svc-shiplow', input: 'hi', max_output_tokens: 40000 }, 'max_output_tokens: must be <= 32768 for model svc-shiplow'],
        ['/v1/chat/completions', { model: 'svc-shiplow', messages: [{ role: 'user', content: 'word '.repeat(140_000) }] }, 'messages: the input exceeds the context of model svc-shiplow (131072 tokens)'],
      ] as const) {
        const r = await postJson(g, acct.key, path, body);
        assert.equal(r.status, 400, `${path} ${body.model}: ${await r.clone().text()}`);
        assert.deepEqual(await r.json(), { error }, path);
      }
      g.anthropic.chat.enqueue({ text: 'a cat' });
      const routed = await postJson(g, acct.key, '/v1/chat/completions', { model: 'svc-shiplow', messages: [{ role: 'user', content: [{ type: 'text', text: 'what?' }, img] }] });
      assert.equal(routed.status, 200, await routed.clone().text());
      assert.equal(routed.headers.get('x-svc-lane'), 'vision');
      await routed.arrayBuffer();
    });
  });

  describe('documented errors on every endpoint', () => {
    const endpoints: [string, Record<string, unknown>][] = [
      ['/v1/chat/completions', { model: 'svc-fast', messages: [{ role: 'user', content: 'hi' }] }],
      ['/v1/completions', { model: 'svc-fast', prompt: 'hi' }],
      ['/v1/responses', { model: 'svc-fast', input: 'hi' }],
      ['/v1/messages', { model: 'svc-fast', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] }],
      ['/inference/v1/messages', { model: 'svc-fast', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] }],
      ['/v1/embeddings', { model: 'svc-embed', input: 'hi' }],
      ['/v1/rerank', { model: 'svc-rerank', query: 'hi', documents: ['a'] }],
      ['/v1/images/generations', { prompt: 'a cat' }],
    ];
    it('401, 403, 402', async () => {
      const unverified = await createTestAccount(g.t, { verified: false, credits: 10 });
      const broke = await createTestAccount(g.t);
      for (const [path, body] of endpoints) {
        for (const [key, status, error] of [
          ['svk_nope', 401, 'unauthorized'],
          [unverified.key, 403, 'please verify your email first'],
          [broke.key, 402, 'out of credits - please top up at the dashboard'],
        ] as const) {
          const r = await postJson(g, key, path, body);
          assert.equal(r.status, status, `${path} ${status}: ${await r.clone().text()}`);
          assert.deepEqual(await r.json(), { error }, path);
        }
        const none = await fetch(`${g.t.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
        assert.equal(none.status, 401, path);
        assert.deepEqual(await none.json(), { error: 'unauthorized' });
      }
      for (const path of ['/v1/models', '/v1/available-models', '/inference/v1/models']) {
        const r = await fetch(`${g.t.url}${path}`, { headers: { authorization: 'Bearer svk_nope' } });
        assert.equal(r.status, 401, path);
        assert.deepEqual(await r.json(), { error: 'unauthorized' });
        const u = await fetch(`${g.t.url}${path}`, { headers: { authorization: `Bearer ${unverified.key}` } });
        assert.equal(u.status, 403, path);
        assert.deepEqual(await u.json(), { error: 'please verify your email first' });
      }
      const sdk = g.client(broke.key);
      await assert.rejects(sdk.embeddings.create({ model: 'svc-embed', input: 'x' }), (e: unknown) => e instanceof OpenAI.APIError && e.status === 402 && e.message.includes('out of credits - please top up at the dashboard'));
      const an = new Anthropic({ apiKey: broke.key, baseURL: `${g.t.url}/inference`, maxRetries: 0 });
      await assert.rejects(an.messages.create({ model: 'svc-fast', max_tokens: 5, messages: [{ role: 'user', content: 'x' }] }), (e: unknown) => e instanceof Anthropic.APIError && e.status === 402 && e.message.includes('out of credits - please top up at the dashboard'));
      await assert.rejects(g.client(unverified.key).completions.create({ model: 'svc-fast', prompt: 'x' }), (e: unknown) => e instanceof OpenAI.PermissionDeniedError && e.message.includes('please verify your email first'));
      await assert.rejects(g.client('svk_bad').images.generate({ prompt: 'a cat' }), (e: unknown) => e instanceof OpenAI.AuthenticationError && e.message.includes('unauthorized'));
      const an403 = new Anthropic({ apiKey: unverified.key, baseURL: `${g.t.url}/inference`, maxRetries: 0 });
      await assert.rejects(an403.messages.countTokens({ model: 'svc-fast', messages: [{ role: 'user', content: 'x' }] }), (e: unknown) => e instanceof Anthropic.PermissionDeniedError && e.message.includes('please verify your email first'));
      const an401 = new Anthropic({ apiKey: 'svk_bad', baseURL: `${g.t.url}/inference`, maxRetries: 0 });
      await assert.rejects(an401.messages.create({ model: 'svc-fast', max_tokens: 5, messages: [{ role: 'user', content: 'x' }] }), (e: unknown) => e instanceof Anthropic.AuthenticationError && e.message.includes('unauthorized'));
    });
  });

});

const RATE_LIMITED = 'rate limit exceeded — try again in a minute';

describe('inference API, twentieth audit: the rate limits', () => {
  let g: Gateway;
  before(async () => void (g = await startGateway({ env: { RATE_LIMIT_INFERENCE_PER_MINUTE: '7' } })));
  after(() => g.close());

  it('every text route, with either key of the account, spends one budget; images have their own; both SDKs show the 429', async () => {
    const acct = await createTestAccount(g.t, { credits: 1000 });
    const k2 = await g.t.app.inject({ method: 'POST', url: `/admin/accounts/${acct.id}/keys`, headers: g.t.admin, payload: {} });
    const second = k2.json().key as string;
    const text: [string, Record<string, unknown>][] = [
      ['/v1/chat/completions', { model: 'svc-fast', messages: [{ role: 'user', content: 'hi' }] }],
      ['/v1/completions', { model: 'svc-fast', prompt: 'hi' }],
      ['/v1/responses', { model: 'svc-fast', input: 'hi' }],
      ['/inference/v1/messages', { model: 'svc-fast', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] }],
      ['/v1/embeddings', { model: 'svc-embed', input: 'hi' }],
      ['/v1/rerank', { model: 'svc-rerank', query: 'hi', documents: ['a'] }],
      ['/inference/v1/messages/count_tokens', { model: 'svc-fast', messages: [{ role: 'user', content: 'hi' }] }],
    ];
    for (const [i, [path, body]] of text.entries()) {
      const r = await postJson(g, i % 2 ? second : acct.key, path, body);
      assert.equal(r.status, 200, `${path}: ${await r.clone().text()}`);
      assert.equal(r.headers.get('x-ratelimit-remaining-requests'), String(6 - i), path);
      await r.arrayBuffer();
    }
    const image = await postJson(g, second, '/v1/images/generations', { prompt: 'a cat' });
    assert.equal(image.status, 200);
    assert.equal(image.headers.get('x-ratelimit-remaining-requests'), '9');
    await image.arrayBuffer();
    const limited = (err: unknown) => (err instanceof OpenAI.RateLimitError || err instanceof Anthropic.RateLimitError) && err.status === 429 && err.message.includes(RATE_LIMITED);
    await assert.rejects(g.client(acct.key).embeddings.create({ model: 'svc-embed', input: 'x' }), limited);
    await assert.rejects(g.client(second).chat.completions.create({ model: 'svc-fast', messages: [{ role: 'user', content: 'x' }] }), limited);
    const anthropic = new Anthropic({ apiKey: second, baseURL: `${g.t.url}/inference`, maxRetries: 0 });
    await assert.rejects(anthropic.messages.create({ model: 'svc-fast', max_tokens: 5, messages: [{ role: 'user', content: 'x' }] }), limited);
    const r = await postJson(g, acct.key, '/v1/rerank', { model: 'svc-rerank', query: 'hi', documents: ['a'] });
    assert.equal(r.status, 429);
    assert.deepEqual(await r.json(), { error: RATE_LIMITED });
  });
});
