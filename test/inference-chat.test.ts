import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import OpenAI from 'openai';
import type { ChatCompletionChunk, ChatCompletionCreateParamsNonStreaming, ChatCompletionTool } from 'openai/resources/chat/completions';
import type { FakeChatScenario } from './fakes/fake-scenario.ts';
import { startGateway, type Gateway } from './helpers/gateway.ts';
import { createTestAccount, type TestAccount } from './helpers/inference.ts';

const CHATCMPL_ID = /^chatcmpl-[A-Za-z0-9]{24}$/;
const CALL_ID = /^call_[A-Za-z0-9]{24}$/;

const tools: ChatCompletionTool[] = [
  { type: 'function', function: { name: 'get_weather', description: 'Weather for a city', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } } },
  { type: 'function', function: { name: 'get_time', description: 'Time in a zone', parameters: { type: 'object', properties: { timezone: { type: 'string' } }, required: ['timezone'] } } },
];
const twoCalls: FakeChatScenario['toolCalls'] = [
  { name: 'get_weather', arguments: { city: 'Paris' } },
  { name: 'get_time', arguments: { timezone: 'Europe/Paris' } },
];
const PNG_DATA_URI =
  'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';

/** The text, tool calls, finish reason, usage and ids of an SDK stream. */
async function collect(stream: AsyncIterable<ChatCompletionChunk>) {
  const out = {
    chunks: [] as ChatCompletionChunk[],
    text: '',
    calls: [] as { id: string; name: string; arguments: string }[],
    finish: null as string | null,
    usage: null as ChatCompletionChunk['usage'] | null,
  };
  for await (const c of stream) {
    out.chunks.push(c);
    if (c.usage) out.usage = c.usage;
    const choice = c.choices[0];
    if (!choice) continue;
    if (choice.delta.content) out.text += choice.delta.content;
    for (const tc of choice.delta.tool_calls ?? []) {
      if (tc.id) out.calls[tc.index] = { id: tc.id, name: tc.function?.name ?? '', arguments: '' };
      out.calls[tc.index]!.arguments += tc.function?.arguments ?? '';
    }
    if (choice.finish_reason) out.finish = choice.finish_reason;
  }
  return out;
}

/** Both upstream kinds behind the same brand-level behaviour. */
const KINDS = [
  { name: 'an OpenAI-style upstream', model: 'svc-fast', fake: (g: Gateway) => g.openai },
  { name: 'an Anthropic upstream', model: 'svc-vision', fake: (g: Gateway) => g.anthropic },
] as const;

describe('POST /v1/chat/completions and /v1/completions through the openai client', () => {
  let g: Gateway;
  let acct: TestAccount;
  let client: OpenAI;
  before(async () => {
    g = await startGateway();
    acct = await createTestAccount(g.t, { credits: 10_000 });
    client = g.client(acct.key);
  });
  after(() => g.close());

  for (const kind of KINDS) {
    describe(`over ${kind.name} (${kind.model})`, () => {
      it('answers a chat completion with a service id, the brand id and the upstream usage', async () => {
        kind.fake(g).chat.enqueue({ text: 'Bonjour, le monde.', usage: { input: 31, cached: 11, output: 7 } });
        const r = await client.chat.completions.create({ model: kind.model, messages: [{ role: 'user', content: 'Say hello in French' }] });
        assert.match(r.id, CHATCMPL_ID);
        assert.equal(r.object, 'chat.completion');
        assert.equal(r.model, kind.model);
        assert.equal(r.choices[0]!.message.content, 'Bonjour, le monde.');
        assert.equal(r.choices[0]!.finish_reason, 'stop');
        assert.deepEqual(r.usage, { prompt_tokens: 31, completion_tokens: 7, total_tokens: 38, prompt_tokens_details: { cached_tokens: 11 }, completion_tokens_details: { reasoning_tokens: 0 } });
      });

      it('streams text with the usage chunk last when include_usage is set, then [DONE]', async () => {
        kind.fake(g).chat.enqueue({ text: 'Streaming works across both kinds.', usage: { input: 20, cached: 0, output: 9 } });
        const stream = await client.chat.completions.create({
          model: kind.model,
          messages: [{ role: 'user', content: 'stream please' }],
          stream: true,
          stream_options: { include_usage: true },
        });
        const out = await collect(stream);
        assert.equal(out.text, 'Streaming works across both kinds.');
        assert.equal(out.finish, 'stop');
        assert.deepEqual(out.usage, { prompt_tokens: 20, completion_tokens: 9, total_tokens: 29, prompt_tokens_details: { cached_tokens: 0 }, completion_tokens_details: { reasoning_tokens: 0 } });
        const last = out.chunks.at(-1)!;
        assert.deepEqual(last.choices, [], 'the usage chunk has no choices');
        assert.equal(new Set(out.chunks.map((c) => c.id)).size, 1, 'one id for the whole stream');
        assert.match(out.chunks[0]!.id, CHATCMPL_ID);
        assert.ok(out.chunks.every((c) => c.model === kind.model));
        assert.equal(out.chunks[0]!.choices[0]!.delta.role, 'assistant');
      });

      it('streams without a usage chunk when include_usage is not set', async () => {
        kind.fake(g).chat.enqueue({ text: 'no usage here' });
        const out = await collect(await client.chat.completions.create({ model: kind.model, messages: [{ role: 'user', content: 'hi' }], stream: true }));
        assert.equal(out.text, 'no usage here');
        assert.equal(out.usage, null);
        assert.ok(out.chunks.every((c) => !('usage' in c)));
      });

      it('calls several tools with tool_choice auto, streamed and not, with service call ids', async () => {
        kind.fake(g).chat.enqueue({ toolCalls: twoCalls });
        const r = await client.chat.completions.create({ model: kind.model, messages: [{ role: 'user', content: 'Weather and time in Paris?' }], tools, tool_choice: 'auto' });
        const msg = r.choices[0]!.message;
        assert.equal(r.choices[0]!.finish_reason, 'tool_calls');
        assert.equal(msg.content, null);
        assert.deepEqual(
          msg.tool_calls!.map((c) => c.type === 'function' && [c.function.name, JSON.parse(c.function.arguments)]),
          [['get_weather', { city: 'Paris' }], ['get_time', { timezone: 'Europe/Paris' }]],
        );
        for (const c of msg.tool_calls!) assert.match(c.id, CALL_ID);

        kind.fake(g).chat.enqueue({ toolCalls: twoCalls });
        const out = await collect(
          await client.chat.completions.create({ model: kind.model, messages: [{ role: 'user', content: 'Weather and time in Paris?' }], tools, tool_choice: 'auto', stream: true }),
        );
        assert.equal(out.finish, 'tool_calls');
        assert.deepEqual(out.calls.map((c) => [c.name, JSON.parse(c.arguments)]), [['get_weather', { city: 'Paris' }], ['get_time', { timezone: 'Europe/Paris' }]]);
        for (const c of out.calls) assert.match(c.id, CALL_ID);
        assert.ok(out.chunks.filter((c) => c.choices[0]?.delta.tool_calls).length > 4, 'arguments arrive as deltas');
      });

      it('answers structured output for json_schema and json_object', async () => {
        const json = { city: 'Paris', temperature_c: 21 };
        kind.fake(g).chat.enqueue({ json });
        const r = await client.chat.completions.create({
          model: kind.model,
          messages: [{ role: 'user', content: 'Weather as JSON' }],
          response_format: {
            type: 'json_schema',
            json_schema: { name: 'weather', schema: { type: 'object', properties: { city: { type: 'string' }, temperature_c: { type: 'number' } }, required: ['city'] } },
          },
        });
        assert.deepEqual(JSON.parse(r.choices[0]!.message.content!), json);
        assert.equal(r.choices[0]!.finish_reason, 'stop');

        kind.fake(g).chat.enqueue({ json });
        const out = await collect(
          await client.chat.completions.create({ model: kind.model, messages: [{ role: 'user', content: 'Weather as JSON' }], response_format: { type: 'json_object' }, stream: true }),
        );
        assert.deepEqual(JSON.parse(out.text), json);
      });
    });
  }

  it('passes image parts to a vision model over the Anthropic upstream', async () => {
    g.anthropic.chat.enqueue({ text: 'A single pixel.' });
    const r = await client.chat.completions.create({
      model: 'svc-vision',
      messages: [{ role: 'user', content: [{ type: 'text', text: 'What is this?' }, { type: 'image_url', image_url: { url: PNG_DATA_URI } }] }],
    });
    assert.equal(r.choices[0]!.message.content, 'A single pixel.');
    const sent = g.anthropic.requests.at(-1)!.body as { messages: { content: { type: string; source?: { type: string; media_type: string } }[] }[] };
    assert.deepEqual(sent.messages[0]!.content[1]!.source?.type, 'base64');
  });

  it('refuses image parts on a model without vision with a 400 naming the part, before any upstream call', async () => {
    const before = g.openai.requests.length;
    await assert.rejects(
      client.chat.completions.create({
        model: 'svc-fast',
        messages: [{ role: 'system', content: 'x' }, { role: 'user', content: [{ type: 'text', text: 'What is this?' }, { type: 'image_url', image_url: { url: PNG_DATA_URI } }] }],
      }),
      (e: unknown) => e instanceof OpenAI.BadRequestError && e.status === 400 && (e.error as unknown) === 'messages[1].content[1]: model svc-fast does not accept images',
    );
    assert.equal(g.openai.requests.length, before);
  });

  it('bounds max_tokens by the model max output', async () => {
    const send = (body: Record<string, unknown>) =>
      fetch(`${g.t.url}/v1/chat/completions`, { method: 'POST', headers: { authorization: `Bearer ${acct.key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const over = await send({ model: 'svc-shiplow', messages: [{ role: 'user', content: 'hi' }], max_tokens: 32769 });
    assert.equal(over.status, 400);
    assert.deepEqual(await over.json(), { error: 'max_tokens: must be <= 32768 for model svc-shiplow' });
    const over2 = await send({ model: 'svc-fast', messages: [{ role: 'user', content: 'hi' }], max_completion_tokens: 900001 });
    assert.deepEqual(await over2.json(), { error: 'max_completion_tokens: must be <= 900000 for model svc-fast' });
    g.openai.chat.enqueue({ text: 'ok' });
    const at = await send({ model: 'svc-fast', messages: [{ role: 'user', content: 'hi' }], max_tokens: 900000 });
    assert.equal(at.status, 200);
    assert.equal((g.openai.requests.at(-1)!.body as { max_tokens: number }).max_tokens, 900000);
  });

  it('answers 400 naming the field for malformed bodies, and 404/400 for models', async () => {
    const cases: [Record<string, unknown>, number, string][] = [
      [{ model: 'svc-fast' }, 400, 'messages: is required'],
      // A request without `model` is served by the budget default (test/inference-routing.test.ts).
      [{ model: '', messages: [{ role: 'user', content: 'x' }] }, 400, 'model: must not be empty'],
      [{ model: 'svc-fast', messages: [{ role: 'robot', content: 'x' }] }, 400, 'messages[0].role: must be one of system, developer, user, assistant, tool'],
      [{ model: 'svc-fast', messages: [{ role: 'user', content: 'x' }], tools: [{ type: 'function', function: { name: 'bad name' } }] }, 400, 'tools[0].function.name: must be 1-64 letters, digits, underscores or dashes'],
      [{ model: 'svc-fast', messages: [{ role: 'user', content: 'x' }], temperature: 3 }, 400, 'temperature: must be <= 2'],
      [{ model: 'svc-fast', messages: [{ role: 'user', content: 'x' }], response_format: { type: 'xml' } }, 400, 'response_format.type: must be one of text, json_object, json_schema'],
      [{ model: 'svc-nope', messages: [{ role: 'user', content: 'x' }] }, 404, 'model not found: svc-nope'],
      [{ model: 'svc-embed', messages: [{ role: 'user', content: 'x' }] }, 400, 'model svc-embed does not support /v1/chat/completions'],
    ];
    for (const [body, status, error] of cases) {
      const r = await fetch(`${g.t.url}/v1/chat/completions`, { method: 'POST', headers: { authorization: `Bearer ${acct.key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
      assert.equal(r.status, status, JSON.stringify(body));
      assert.deepEqual(await r.json(), { error });
      assert.ok(r.headers.get('x-ratelimit-remaining-requests') !== null);
    }
  });

  it('serves the same routes under /inference/v1', async () => {
    g.openai.chat.enqueue({ text: 'from the second base' });
    const other = new OpenAI({ apiKey: acct.key, baseURL: `${g.t.url}/inference/v1`, maxRetries: 0 });
    const r = await other.chat.completions.create({ model: 'svc-fast', messages: [{ role: 'user', content: 'hi' }] });
    assert.equal(r.choices[0]!.message.content, 'from the second base');
  });

  it('falls back to the next deployment when the first answers 500, and not after a 400', async () => {
    g.anthropic.chat.enqueue({ error: { status: 500 } });
    g.openai.chat.enqueue({ text: 'served by the fallback' });
    const r = await client.chat.completions.create({ model: 'svc-pro', messages: [{ role: 'user', content: 'hi' }] });
    assert.equal(r.choices[0]!.message.content, 'served by the fallback');
    assert.equal(r.model, 'svc-pro');
    assert.equal((g.openai.requests.at(-1)!.body as { model: string }).model, 'gpt-4.1');

    // Streams fall back too, as long as nothing was sent.
    g.anthropic.chat.enqueue({ error: { status: 529 } });
    g.openai.chat.enqueue({ text: 'streamed by the fallback' });
    const out = await collect(await client.chat.completions.create({ model: 'svc-pro', messages: [{ role: 'user', content: 'hi' }], stream: true }));
    assert.equal(out.text, 'streamed by the fallback');

    const openaiCalls = g.openai.requests.length;
    g.anthropic.chat.enqueue({ error: { status: 400, message: 'messages: text content blocks must be non-empty' } });
    await assert.rejects(client.chat.completions.create({ model: 'svc-pro', messages: [{ role: 'user', content: 'hi' }] }), (e: unknown) => {
      assert.ok(e instanceof OpenAI.BadRequestError);
      assert.equal(e.error as unknown, 'messages: text content blocks must be non-empty');
      return true;
    });
    assert.equal(g.openai.requests.length, openaiCalls, 'a request error is not retried elsewhere');
  });

  it('answers an upstream failure before the first byte of a stream as a JSON error with its status', async () => {
    g.openai.chat.enqueue({ error: { status: 503 } });
    const r = await fetch(`${g.t.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${acct.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'svc-fast', messages: [{ role: 'user', content: 'hi' }], stream: true }),
    });
    assert.equal(r.status, 503);
    assert.match(r.headers.get('content-type')!, /^application\/json/);
    const body = (await r.json()) as { error: string };
    assert.equal(typeof body.error, 'string');
    assert.match(body.error, /svc-fast/);

    g.openai.chat.enqueue({ error: { status: 429 } });
    await assert.rejects(client.chat.completions.create({ model: 'svc-fast', messages: [{ role: 'user', content: 'hi' }], stream: true }), (e: unknown) => e instanceof OpenAI.RateLimitError);
  });

  for (const kind of KINDS) {
    it(`sends an error event and [DONE] when ${kind.name} fails mid-stream`, async () => {
      // OpenAI fake: role chunk + 4 content chunks; Anthropic fake: start, block start, ping + 2 deltas.
      kind.fake(g).chat.enqueue({ text: 'This answer will break off soon enough.', streamErrorAfter: { events: 5 } });
      const r = await fetch(`${g.t.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${acct.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: kind.model, messages: [{ role: 'user', content: 'hi' }], stream: true }),
      });
      assert.equal(r.status, 200);
      assert.equal(r.headers.get('content-type'), 'text/event-stream; charset=utf-8');
      const events = (await r.text()).split('\n\n').filter(Boolean);
      assert.equal(events.at(-1), 'data: [DONE]');
      const error = JSON.parse(events.at(-2)!.slice('data: '.length)) as { error: { message: string; type: string } };
      assert.equal(error.error.type, 'server_error');
      assert.ok(events.slice(0, -2).every((e) => (JSON.parse(e.slice(6)) as { object: string }).object === 'chat.completion.chunk'));

      // The SDK raises it as an APIError after the text that came before.
      kind.fake(g).chat.enqueue({ text: 'This answer will break off soon enough.', streamErrorAfter: { events: 5 } });
      const stream = await client.chat.completions.create({ model: kind.model, messages: [{ role: 'user', content: 'hi' }], stream: true });
      let text = '';
      await assert.rejects(
        (async () => {
          for await (const c of stream) text += c.choices[0]?.delta.content ?? '';
        })(),
        (e: unknown) => e instanceof OpenAI.APIError,
      );
      assert.ok(text.length > 0);
    });
  }

  it('routes pipelines to their general lane with the requested brand id and the x-svc headers', async () => {
    g.openai.chat.enqueue({ text: 'general lane' });
    const { data, response } = await client.chat.completions.create({ model: 'svc-shiplow', messages: [{ role: 'user', content: 'hi' }] }).withResponse();
    assert.equal(data.model, 'svc-shiplow');
    assert.equal(data.choices[0]!.message.content, 'general lane');
    assert.equal(response.headers.get('x-svc-model'), 'svc-fast');
    assert.equal(response.headers.get('x-svc-lane'), 'general');
    assert.equal((g.openai.requests.at(-1)!.body as { model: string }).model, 'gpt-4.1-mini');

    g.anthropic.chat.enqueue({ text: 'ultra general lane' });
    const s = await client.chat.completions.create({ model: 'svc-ultra', messages: [{ role: 'user', content: 'hi' }], stream: true }).withResponse();
    assert.equal(s.response.headers.get('x-svc-model'), 'svc-pro');
    assert.equal(s.response.headers.get('x-svc-lane'), 'general');
    const out = await collect(s.data);
    assert.equal(out.text, 'ultra general lane');
    assert.ok(out.chunks.every((c) => c.model === 'svc-ultra'));

    // svc-ultra takes images; its general lane (svc-pro) cannot see, so the vision lane serves them.
    g.anthropic.chat.enqueue({ text: 'seen' });
    const v = await client.chat.completions
      .create({ model: 'svc-ultra', messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: PNG_DATA_URI } }] }] })
      .withResponse();
    assert.equal(v.response.headers.get('x-svc-model'), 'svc-vision');
    assert.equal(v.response.headers.get('x-svc-lane'), 'vision');
    assert.equal((g.anthropic.requests.at(-1)!.body as { model: string }).model, 'claude-sonnet-4-5');

    const plain = await client.chat.completions.create({ model: 'svc-fast', messages: [{ role: 'user', content: 'hi' }] } as ChatCompletionCreateParamsNonStreaming).withResponse();
    assert.equal(plain.response.headers.get('x-svc-model'), null);
  });

  for (const kind of KINDS) {
    it(`serves /v1/completions over ${kind.name}, streamed and not`, async () => {
      kind.fake(g).chat.enqueue({ text: ' jumps over the lazy dog.', usage: { input: 25, cached: 0, output: 6 } });
      const r = await client.completions.create({ model: kind.model, prompt: 'The quick brown fox', max_tokens: 20 });
      assert.match(r.id, /^cmpl-[A-Za-z0-9]{24}$/);
      assert.equal(r.object, 'text_completion');
      assert.equal(r.model, kind.model);
      assert.equal(r.choices[0]!.text, ' jumps over the lazy dog.');
      assert.equal(r.choices[0]!.finish_reason, 'stop');
      assert.deepEqual(r.usage, { prompt_tokens: 25, completion_tokens: 6, total_tokens: 31, prompt_tokens_details: { cached_tokens: 0 }, completion_tokens_details: { reasoning_tokens: 0 } });
      const sent = kind.fake(g).requests.at(-1)!.body as Record<string, unknown>;
      assert.match(JSON.stringify(sent), /The quick brown fox/);

      kind.fake(g).chat.enqueue({ text: ' jumps over the lazy dog.' });
      const stream = await client.completions.create({ model: kind.model, prompt: 'The quick brown fox', stream: true, stream_options: { include_usage: true } });
      let text = '';
      let usage = null;
      let finish = null;
      for await (const c of stream) {
        assert.equal(c.model, kind.model);
        text += c.choices[0]?.text ?? '';
        finish = c.choices[0]?.finish_reason ?? finish;
        if (c.usage) usage = c.usage;
      }
      assert.equal(text, ' jumps over the lazy dog.');
      assert.equal(finish, 'stop');
      assert.equal(usage!.completion_tokens, 12);
    });
  }

  it('refuses what completions cannot do, naming the field', async () => {
    await assert.rejects(client.completions.create({ model: 'svc-fast', prompt: 'x', echo: true }), (e: unknown) => e instanceof OpenAI.BadRequestError && (e.error as unknown) === 'echo: is not supported');
    await assert.rejects(client.completions.create({ model: 'svc-fast', prompt: '' }), (e: unknown) => e instanceof OpenAI.BadRequestError && (e.error as unknown) === 'prompt: must not be empty');
    await assert.rejects(client.completions.create({ model: 'svc-embed', prompt: 'x' }), (e: unknown) => e instanceof OpenAI.BadRequestError && (e.error as unknown) === 'model svc-embed does not support /v1/completions');
  });
});
