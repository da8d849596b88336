import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import OpenAI from 'openai';
import { closedPort } from './helpers/closed-port.ts';
import { accountCredits, billedOnce, catalogYaml, expectedCost, PRICES, startGateway, type Gateway, type UsageRow } from './helpers/gateway.ts';
import { createTestAccount, type TestAccount } from './helpers/inference.ts';

/**
 * The shared test catalog (svc-fast on the OpenAI fake, svc-pro on the Anthropic one, svc-ultra a
 * pipeline over svc-pro), the OpenAI fake's calls bounded so a hang fails over, plus three models
 * that fail in their own ways: svc-refused (a port nothing listens on), svc-dark (no upstream key:
 * no upstream configured) and svc-small (a context of 50 tokens), and a cheap-output, dear-input
 * model (svc-lopsided) for the hold.
 */
function catalog(refusedPort: number) {
  return (f: Parameters<typeof catalogYaml>[0]) =>
    catalogYaml(f)
      .replace(/(id: main-openai, [^}]*)\}/, '$1, timeout_ms: 1500, first_byte_timeout_ms: 400 }')
      .replace(
        'models:\n',
        `  - { id: refused, type: openai, base_url: "http://127.0.0.1:${refusedPort}/v1", api_key: "k", connect_timeout_ms: 1000 }
  - { id: dark, type: openai, base_url: "${f.openai.baseUrl}", api_key: "" }
models:
  - { id: svc-refused, type: chat, pricing: { input: 0.45, cached_input: 0.1125, output: 0.90 }, deployments: [{ provider: refused, model: gone }] }
  - { id: svc-dark, type: chat, pricing: { input: 0.45, cached_input: 0.1125, output: 0.90 }, deployments: [{ provider: dark, model: gone }] }
  - { id: svc-small, type: chat, context: 50, pricing: { input: 0.45, cached_input: 0.1125, output: 0.90 }, deployments: [{ provider: main-openai, model: small }] }
`,
      );
}

const USAGE = { input: 100, cached: 0, output: 10 };

describe('caller fallback lists (`models`) on chat completions and completions', () => {
  let g: Gateway;
  let acct: TestAccount;
  let client: OpenAI;

  before(async () => {
    const port = await closedPort();
    g = await startGateway({ catalog: catalog(port), env: { RATE_LIMIT_INFERENCE_PER_MINUTE: '100000' } });
    acct = await createTestAccount(g.t, { credits: 1000 });
    client = g.client(acct.key);
  });
  after(async () => g.close());

  type Body = OpenAI.Chat.ChatCompletionCreateParamsNonStreaming & { models?: unknown };
  const ask = (body: Partial<Body>) =>
    client.chat.completions.create({ messages: [{ role: 'user', content: 'hi' }], ...body } as Body).withResponse();
  const refusal = async (body: Record<string, unknown>) => {
    const e = await ask(body).then(
      () => assert.fail('expected a refusal'),
      (err: unknown) => err,
    );
    assert.ok(e instanceof OpenAI.APIError, String(e));
    return { status: e.status, message: e.error };
  };

  const billed = (fn: () => Promise<void>): Promise<UsageRow> => billedOnce(g, acct.id, fn);

  it('serves with the next model when the first answers 503, billed at the serving model\'s prices', async () => {
    g.openai.chat.enqueue({ error: { status: 503 } });
    g.anthropic.chat.enqueue({ text: 'from pro', usage: USAGE });
    let headers!: Headers;
    const row = await billed(async () => {
      const { data, response } = await ask({ models: ['svc-fast', 'svc-pro'] });
      assert.equal(data.model, 'svc-pro');
      assert.equal(data.choices[0]!.message.content, 'from pro');
      headers = response.headers;
    });
    assert.equal(headers.get('x-svc-model'), 'svc-pro');
    assert.equal(headers.get('x-svc-lane'), null);
    assert.deepEqual([row.model, row.served_model, row.status, row.input_tokens, row.output_tokens], ['svc-fast', 'svc-pro', 200, 100, 10]);
    assert.equal(BigInt(row.cost_micro), expectedCost(PRICES['svc-pro'], USAGE));
  });

  it('the first model that answers serves, at its own prices, and names itself', async () => {
    g.openai.chat.enqueue({ text: 'from fast', usage: USAGE });
    const row = await billed(async () => {
      const { data, response } = await ask({ models: ['svc-fast', 'svc-pro'] });
      assert.equal(data.model, 'svc-fast');
      assert.equal(response.headers.get('x-svc-model'), 'svc-fast');
    });
    assert.deepEqual([row.model, row.served_model], ['svc-fast', null]);
    assert.equal(BigInt(row.cost_micro), expectedCost(PRICES['svc-fast'], USAGE));
  });

  it('falls over on a rate limit, a refused connection, a hang, a model with no upstream and an input over a context', async () => {
    const cases: { models: string[]; setup?: () => void; content?: string }[] = [
      { models: ['svc-fast', 'svc-pro'], setup: () => g.openai.chat.enqueue({ error: { status: 429, headers: { 'retry-after': '600' } } }) },
      { models: ['svc-refused', 'svc-pro'] },
      { models: ['svc-fast', 'svc-pro'], setup: () => g.openai.chat.enqueue({ hang: true }) },
      { models: ['svc-dark', 'svc-pro'] },
      { models: ['svc-small', 'svc-pro'], content: 'word '.repeat(400) },
    ];
    for (const c of cases) {
      c.setup?.();
      g.anthropic.chat.enqueue({ text: 'from pro', usage: USAGE });
      const row = await billed(async () => {
        const { data } = await ask({ models: c.models, messages: [{ role: 'user', content: c.content ?? 'hi' }] });
        assert.equal(data.model, 'svc-pro', c.models.join());
      });
      assert.deepEqual([row.served_model, BigInt(row.cost_micro)], ['svc-pro', expectedCost(PRICES['svc-pro'], USAGE)], c.models.join());
    }
  });

  it('answers the last failure, charging nothing, when every model fails', async () => {
    g.openai.chat.enqueue({ error: { status: 503 } });
    g.anthropic.chat.enqueue({ error: { status: 500 } });
    g.openai.chat.enqueue({ error: { status: 502 } }); // svc-pro's OpenAI-style deployment
    const row = await billed(async () => {
      const { status } = await refusal({ models: ['svc-fast', 'svc-pro'] });
      assert.ok(status >= 500, String(status));
    });
    assert.equal(row.cost_micro, '0');
  });

  it('streams from the next model when the first fails before its first byte', async () => {
    g.openai.chat.enqueue({ error: { status: 500 } });
    g.anthropic.chat.enqueue({ text: 'streamed from pro', usage: USAGE });
    const row = await billed(async () => {
      const stream = await client.chat.completions.create({
        messages: [{ role: 'user', content: 'hi' }],
        stream: true,
        stream_options: { include_usage: true },
        models: ['svc-fast', 'svc-pro'],
      } as unknown as OpenAI.Chat.ChatCompletionCreateParamsStreaming);
      let text = '';
      const models = new Set<string>();
      for await (const ch of stream) {
        models.add(ch.model);
        text += ch.choices[0]?.delta.content ?? '';
      }
      assert.equal(text, 'streamed from pro');
      assert.deepEqual([...models], ['svc-pro']);
    });
    assert.deepEqual([row.served_model, BigInt(row.cost_micro)], ['svc-pro', expectedCost(PRICES['svc-pro'], USAGE)]);
  });

  it('does not fall back once a stream has started: the error event ends it, billed for what came', async () => {
    const anthropicCalls = g.anthropic.requests.length;
    g.openai.chat.enqueue({ text: 'This one breaks in the middle.', streamErrorAfter: { events: 5 }, usage: USAGE });
    const row = await billed(async () => {
      const stream = await client.chat.completions.create({
        messages: [{ role: 'user', content: 'hi' }],
        stream: true,
        models: ['svc-fast', 'svc-pro'],
      } as unknown as OpenAI.Chat.ChatCompletionCreateParamsStreaming);
      await assert.rejects(async () => {
        for await (const ch of stream) assert.equal(ch.model, 'svc-fast');
      });
    });
    assert.equal(g.anthropic.requests.length, anthropicCalls, 'svc-pro never called');
    assert.equal(row.served_model, null);
    assert.notEqual(row.status, 200);
  });

  it('skips a model that cannot take the request\'s images, and refuses as today when none can', async () => {
    const image = 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';
    const messages = [{ role: 'user' as const, content: [{ type: 'text' as const, text: 'what is it?' }, { type: 'image_url' as const, image_url: { url: image } }] }];
    g.anthropic.chat.enqueue({ text: 'a pixel', usage: USAGE });
    const { data } = await ask({ models: ['svc-fast', 'svc-vision'], messages });
    assert.equal(data.model, 'svc-vision');
    const alone = await refusal({ model: 'svc-fast', messages });
    assert.equal(alone.status, 400);
    assert.deepEqual(await refusal({ models: ['svc-fast', 'svc-pro'], messages }), alone);
    const tools = [{ type: 'function' as const, function: { name: 'f', parameters: { type: 'object' } } }];
    // Nothing in the list can serve: the answer is what the first model alone would get.
    assert.deepEqual(await refusal({ models: ['svc-dark'], tools }), await refusal({ model: 'svc-dark', tools }));
  });

  it('validates the list: ids as `model` is, 1 to 5 of them, `model` first, duplicates once', async () => {
    assert.deepEqual(await refusal({ models: ['svc-fast', 'svc-nope'] }), { status: 404, message: 'model not found: svc-nope' });
    assert.deepEqual(await refusal({ models: ['svc-embed'] }), { status: 400, message: 'model svc-embed does not support /v1/chat/completions' });
    assert.deepEqual(await refusal({ models: 'svc-fast' }), { status: 400, message: 'models: must be an array of model ids' });
    assert.deepEqual(await refusal({ models: [] }), { status: 400, message: 'models: must name at least one model' });
    assert.deepEqual(await refusal({ models: ['svc-fast', 7] }), { status: 400, message: 'models[1]: must be a non-empty string' });
    assert.deepEqual(await refusal({ model: 'svc-fast', models: ['svc-pro', 'svc-vision', 'svc-ultra', 'svc-shiplow', 'svc-auto'] }), {
      status: 400,
      message: 'models: at most 5 different models, `model` included',
    });
    g.anthropic.chat.enqueue({ text: 'model first', usage: USAGE });
    const first = await ask({ model: 'svc-pro', models: ['svc-fast', 'svc-pro', 'svc-fast'] });
    assert.equal(first.data.model, 'svc-pro');
    // Duplicates are one model: svc-fast is called once, then svc-pro.
    const calls = g.openai.requests.length;
    g.openai.chat.enqueue({ error: { status: 503 } });
    g.anthropic.chat.enqueue({ text: 'after one call', usage: USAGE });
    assert.equal((await ask({ models: ['svc-fast', 'svc-fast', 'svc-pro'] })).data.model, 'svc-pro');
    assert.equal(g.openai.requests.length - calls, 1);
  });

  it('takes pipelines and svc-auto: the answer names the list\'s model, billed at its prices', async () => {
    g.openai.chat.enqueue({ error: { status: 503 } });
    g.anthropic.chat.enqueue({ text: 'ultra via pro', usage: USAGE });
    const row = await billed(async () => {
      const { data, response } = await ask({ models: ['svc-fast', 'svc-ultra'] });
      assert.equal(data.model, 'svc-ultra');
      assert.equal(response.headers.get('x-svc-model'), 'svc-pro');
      assert.equal(response.headers.get('x-svc-lane'), 'general');
    });
    assert.deepEqual([row.served_model, row.lane, BigInt(row.cost_micro)], ['svc-pro', 'general', expectedCost(PRICES['svc-ultra'], USAGE)]);
    g.openai.chat.enqueue({ text: 'auto chose fast', usage: USAGE });
    const auto = await ask({ models: ['svc-dark', 'svc-auto'] });
    assert.equal(auto.data.model, 'svc-fast');
  });

  it('holds for the dearest model of the list: 402 when the balance covers only the cheap one', async () => {
    const poor = await createTestAccount(g.t, { credits: 10 });
    const poorClient = g.client(poor.key);
    // About 10,000 tokens: 4.5 credits of input at svc-fast's prices, 32 at svc-pro's.
    const messages = [{ role: 'user' as const, content: 'abc '.repeat(7500) }];
    g.openai.chat.enqueue({ text: 'cheap', usage: USAGE });
    const cheap = await poorClient.chat.completions.create({ model: 'svc-fast', messages, max_tokens: 10 });
    assert.equal(cheap.model, 'svc-fast');
    const e = await poorClient.chat.completions.create({ messages, max_tokens: 10, models: ['svc-fast', 'svc-pro'] } as Body).then(
      () => assert.fail('expected 402'),
      (err: unknown) => err,
    );
    assert.ok(e instanceof OpenAI.APIError);
    assert.equal(e.status, 402);
    const left = await accountCredits(g.t, poor.id);
    assert.equal(left.credits, 10_000_000n - expectedCost(PRICES['svc-fast'], USAGE));
  });

  it('serves completions the same way', async () => {
    g.openai.chat.enqueue({ error: { status: 503 } });
    g.anthropic.chat.enqueue({ text: ' world', usage: USAGE });
    const row = await billed(async () => {
      const r = await client.completions.create({ prompt: 'hello', models: ['svc-fast', 'svc-pro'] } as unknown as OpenAI.CompletionCreateParamsNonStreaming);
      assert.equal(r.model, 'svc-pro');
      assert.equal(r.choices[0]!.text, ' world');
    });
    assert.deepEqual([row.endpoint, row.served_model, BigInt(row.cost_micro)], ['completions', 'svc-pro', expectedCost(PRICES['svc-pro'], USAGE)]);
  });
});
