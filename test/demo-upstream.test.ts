import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import OpenAI from 'openai';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { createTestAccount, type TestAccount } from './helpers/inference.ts';

/** The shipped catalog with no upstream key set: the built-in demo provider answers. */
describe('demo upstream', () => {
  let t: TestApp;
  let acct: TestAccount;
  let client: OpenAI;

  before(async () => {
    t = await startTestApp();
    await t.listen();
    acct = await createTestAccount(t, { credits: 10 });
    client = new OpenAI({ apiKey: acct.key, baseURL: `${t.url}/v1`, maxRetries: 0 });
  });
  after(async () => t?.close());

  const balance = async (): Promise<number> =>
    (await t.app.inject({ url: `/admin/accounts/${acct.id}`, headers: t.admin })).json().credits as number;

  it('answers chat with a marked, deterministic, billed demo text', async () => {
    const before = await balance();
    const ask = () => client.chat.completions.create({ model: 'svc-fast', messages: [{ role: 'user', content: 'Say hi' }] }).withResponse();
    const { data, response } = await ask();
    assert.equal(response.headers.get('x-svc-demo'), 'true');
    const text = data.choices[0]!.message.content!;
    assert.match(text, /^\[demo\] This is a demo answer from svc-fast/);
    assert.match(text, /You said: "Say hi"/);
    assert.doesNotMatch(text, /openai|anthropic/i, 'the demo names no upstream');
    assert.equal(data.model, 'svc-fast');
    assert.ok(data.usage!.prompt_tokens > 0 && data.usage!.completion_tokens > 0);
    assert.equal((await ask()).data.choices[0]!.message.content, text, 'the same request, the same answer');
    assert.ok((await balance()) < before, 'the call was billed');
  });

  it('streams the same text in several chunks, with usage', async () => {
    const plain = await client.chat.completions.create({ model: 'svc-pro', messages: [{ role: 'user', content: 'Stream please' }] });
    const { data: stream, response } = await client.chat.completions
      .create({ model: 'svc-pro', messages: [{ role: 'user', content: 'Stream please' }], stream: true, stream_options: { include_usage: true } })
      .withResponse();
    assert.equal(response.headers.get('x-svc-demo'), 'true');
    let text = '';
    let chunks = 0;
    let usage: OpenAI.CompletionUsage | null | undefined;
    for await (const c of stream) {
      const d = c.choices[0]?.delta?.content;
      if (d) {
        text += d;
        chunks++;
      }
      if (c.usage) usage = c.usage;
    }
    assert.ok(chunks > 5, `${chunks} content chunks`);
    assert.equal(text, plain.choices[0]!.message.content);
    assert.ok(usage && usage.completion_tokens > 0);
  });

  it('calls a tool when tools are given, and answers its result in text', async () => {
    const tools: OpenAI.ChatCompletionTool[] = [
      {
        type: 'function',
        function: {
          name: 'get_weather',
          parameters: { type: 'object', properties: { city: { type: 'string' }, days: { type: 'integer', minimum: 1 } }, required: ['city'] },
        },
      },
    ];
    const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: 'Weather in Paris?' }];
    const first = await client.chat.completions.create({ model: 'svc-fast', messages, tools });
    const call = first.choices[0]!.message.tool_calls![0]! as OpenAI.ChatCompletionMessageFunctionToolCall;
    assert.equal(first.choices[0]!.finish_reason, 'tool_calls');
    assert.equal(call.function.name, 'get_weather');
    assert.deepEqual(JSON.parse(call.function.arguments), { city: 'demo', days: 1 });
    const second = await client.chat.completions.create({
      model: 'svc-fast',
      tools,
      messages: [...messages, first.choices[0]!.message, { role: 'tool', tool_call_id: call.id, content: 'sunny' }],
    });
    assert.match(second.choices[0]!.message.content!, /The tool answered: "sunny"/);
  });

  it('serves pipelines, completions, embeddings and rerank deterministically', async () => {
    const viaPipeline = await client.chat.completions.create({ model: 'svc-shiplow', messages: [{ role: 'user', content: 'hello' }] });
    assert.match(viaPipeline.choices[0]!.message.content!, /^\[demo\]/);
    const completion = await client.completions.create({ model: 'svc-fast', prompt: 'Once upon a time' });
    assert.match(completion.choices[0]!.text, /^\[demo\]/);

    const e1 = await client.embeddings.create({ model: 'svc-embed', input: ['alpha', 'beta'] });
    const e2 = await client.embeddings.create({ model: 'svc-embed', input: 'alpha' });
    assert.equal(e1.data.length, 2);
    assert.deepEqual(e1.data[0]!.embedding, e2.data[0]!.embedding);
    assert.notDeepEqual(e1.data[0]!.embedding, e1.data[1]!.embedding);
    const norm = Math.hypot(...e2.data[0]!.embedding);
    assert.ok(Math.abs(norm - 1) < 1e-6);

    const rerank = async () => {
      const r = await fetch(`${t.url}/v1/rerank`, {
        method: 'POST',
        headers: { authorization: `Bearer ${acct.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'svc-rerank', query: 'red apple', documents: ['a green pear', 'a red apple', 'red wine'] }),
      });
      assert.equal(r.status, 200);
      assert.equal(r.headers.get('x-svc-demo'), 'true');
      return ((await r.json()) as { results: { index: number; relevance_score: number }[] }).results;
    };
    const ranked = await rerank();
    assert.deepEqual(ranked.map((r) => r.index), [1, 2, 0]);
    assert.deepEqual(await rerank(), ranked);
  });

  it('turns itself off when an upstream is configured', async () => {
    const real = await startTestApp({ env: { OPENAI_API_KEY: 'sk-not-used' } });
    try {
      assert.equal(real.deps.config.catalog.demo, false);
      const a = await createTestAccount(real, { credits: 10 });
      const r = await real.app.inject({ method: 'POST', url: '/v1/rerank', headers: { authorization: `Bearer ${a.key}` }, payload: { model: 'svc-rerank', query: 'q', documents: ['d'] } });
      assert.equal(r.statusCode, 503);
      assert.equal(r.headers['x-svc-demo'], undefined);
    } finally {
      await real.close();
    }
  });
});
