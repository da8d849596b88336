import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { postJson, startWithSdks, type Gateway } from './helpers/gateway.ts';
import type { TestAccount } from './helpers/inference.ts';

/**
 * Findings of a third audit of inference-api.md (docs/api-decisions.md, "Inference: third audit"):
 * `stream_options` without a stream, user messages with nothing in them, conversations without a
 * turn, blank text sent back to an Anthropic upstream, and `dimensions` beyond the embedding model.
 * The fake Anthropic refuses empty and whitespace-only text blocks and an empty `messages`, as the
 * API does, so a request the gateway lets through to it shows up here.
 */
describe('inference-api.md, third audit', () => {
  let g: Gateway;
  let acct: TestAccount;
  let anthropic: Anthropic;
  let openai: OpenAI;

  before(async () => void ({ g, acct, anthropic, openai } = await startWithSdks()));
  after(() => g.close());

  const post = (path: string, body: unknown) => postJson(g, acct.key, path, body);
  const upstreamCalls = () => g.openai.requests.length + g.anthropic.requests.length;

  /** A 400 in the documented shape, with this message, and nothing sent upstream. */
  async function refused(path: string, body: unknown, error: string): Promise<void> {
    const before = upstreamCalls();
    const r = await post(path, body);
    assert.equal(r.status, 400, `${path} ${JSON.stringify(body)}: ${await r.clone().text()}`);
    assert.deepEqual(await r.json(), { error });
    assert.equal(upstreamCalls(), before, `${path}: nothing goes upstream`);
  }

  describe('stream_options without stream: true', () => {
    const hi = [{ role: 'user', content: 'hi' }];

    it('is a 400 naming stream_options on chat completions, as OpenAI answers', async () => {
      const error = 'stream_options: is only allowed when stream is true';
      await refused('/v1/chat/completions', { model: 'svc-fast', messages: hi, stream_options: { include_usage: true } }, error);
      await refused('/v1/chat/completions', { model: 'svc-fast', messages: hi, stream: false, stream_options: { include_usage: true } }, error);
      await refused('/v1/chat/completions', { model: 'svc-vision', messages: hi, stream_options: {} }, error);
      await assert.rejects(
        openai.chat.completions.create({ model: 'svc-fast', messages: [{ role: 'user', content: 'hi' }], stream_options: { include_usage: true } }),
        (e: unknown) => e instanceof OpenAI.BadRequestError && e.status === 400,
      );
    });

    it('the same on completions and responses, whose stream_options OpenAI also takes only with stream', async () => {
      const error = 'stream_options: is only allowed when stream is true';
      await refused('/v1/completions', { model: 'svc-fast', prompt: 'Once upon', stream_options: { include_usage: true } }, error);
      await refused('/v1/responses', { model: 'svc-fast', input: 'hi', stream_options: { include_obfuscation: false } }, error);
      await refused('/v1/responses', { model: 'svc-fast', input: 'hi', stream: true, stream_options: 'yes' }, 'stream_options: must be an object');
    });

    it('stream_options null is no stream_options; with stream: true it is taken', async () => {
      g.openai.chat.enqueue({ text: 'ok' });
      const r = await post('/v1/chat/completions', { model: 'svc-fast', messages: hi, stream_options: null });
      assert.equal(r.status, 200, await r.clone().text());
      g.openai.chat.enqueue({ text: 'ok' });
      const s = await post('/v1/responses', { model: 'svc-fast', input: 'hi', stream: true, stream_options: { include_obfuscation: false } });
      assert.equal(s.status, 200, await s.clone().text());
      assert.match(await s.text(), /response\.completed/);
      g.openai.chat.enqueue({ text: 'ok' });
      const c = await openai.chat.completions.create({ model: 'svc-fast', messages: [{ role: 'user', content: 'hi' }], stream: true, stream_options: { include_usage: true } });
      let usage = false;
      for await (const chunk of c) usage ||= chunk.usage !== null && chunk.usage !== undefined;
      assert.ok(usage);
    });
  });

  describe('a user message with nothing in it', () => {
    it('is a 400 naming it on chat completions, whichever upstream serves the model', async () => {
      for (const model of ['svc-fast', 'svc-vision', 'svc-pro', 'svc-shiplow']) {
        await refused('/v1/chat/completions', { model, messages: [{ role: 'user', content: '' }] }, 'messages[0].content: must not be empty');
        await refused('/v1/chat/completions', { model, messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: ' \n\t' }] }, 'messages[1].content: must not be only whitespace');
        await refused('/v1/chat/completions', { model, messages: [{ role: 'user', content: [{ type: 'text', text: '' }] }] }, 'messages[0].content: must not be empty');
        await refused(
          '/v1/chat/completions',
          { model, messages: [{ role: 'user', content: 'hi' }, { role: 'assistant', content: 'Hello.' }, { role: 'user', content: [{ type: 'text', text: ' ' }, { type: 'text', text: '' }] }] },
          'messages[2].content: must not be only whitespace',
        );
      }
      await assert.rejects(openai.chat.completions.create({ model: 'svc-vision', messages: [{ role: 'user', content: '' }] }), (e: unknown) => e instanceof OpenAI.BadRequestError);
    });

    it('an image with an empty text part is something: it is answered, and the blank part does not reach Anthropic', async () => {
      g.anthropic.chat.enqueue({ text: 'A cat.' });
      const image = { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } };
      const r = await post('/v1/chat/completions', { model: 'svc-vision', messages: [{ role: 'user', content: [{ type: 'text', text: ' ' }, image] }] });
      assert.equal(r.status, 200, await r.clone().text());
      const sent = g.anthropic.requests.at(-1)!.body as { messages: { content: { type: string }[] }[] };
      assert.deepEqual(sent.messages[0]!.content.map((b) => b.type), ['image']);
    });

    it('is a 400 on messages, responses and completions too', async () => {
      await refused('/v1/messages', { model: 'svc-vision', max_tokens: 10, messages: [{ role: 'user', content: '' }] }, 'messages[0].content: must not be empty');
      await refused('/v1/messages', { model: 'svc-fast', max_tokens: 10, messages: [{ role: 'user', content: [{ type: 'text', text: '  ' }] }] }, 'messages[0].content: must not be only whitespace');
      await assert.rejects(
        anthropic.messages.create({ model: 'svc-vision', max_tokens: 10, messages: [{ role: 'user', content: '' }] }),
        (e: unknown) => e instanceof Anthropic.BadRequestError,
      );
      await refused('/v1/responses', { model: 'svc-vision', input: '  ' }, 'input: must not be only whitespace');
      await refused('/v1/responses', { model: 'svc-fast', input: [{ role: 'user', content: '' }] }, 'input[0].content: must not be empty');
      await refused('/v1/responses', { model: 'svc-vision', input: [{ role: 'user', content: [] }] }, 'input[0].content: must not be empty');
      await refused('/v1/responses', { model: 'svc-vision', input: [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: '\n' }] }] }, 'input[0].content: must not be only whitespace');
      await refused('/v1/completions', { model: 'svc-vision', prompt: '   ' }, 'prompt: must not be only whitespace');
    });

    it('a tool result turn on messages needs no text beside it', async () => {
      g.anthropic.chat.enqueue({ text: 'Sunny.' });
      const r = await post('/v1/messages', {
        model: 'svc-vision',
        max_tokens: 50,
        tools: [{ name: 'weather', input_schema: { type: 'object' } }],
        messages: [
          { role: 'user', content: 'Weather?' },
          { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'weather', input: {} }] },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'sunny' }, { type: 'text', text: ' ' }] },
        ],
      });
      assert.equal(r.status, 200, await r.clone().text());
    });
  });

  describe('a conversation without a user or assistant turn', () => {
    it('is a 400 on chat completions, as on messages: an Anthropic upstream takes no empty conversation', async () => {
      for (const model of ['svc-fast', 'svc-vision']) {
        await refused('/v1/chat/completions', { model, messages: [{ role: 'system', content: 'You are terse.' }] }, 'messages: must have a user or assistant message');
        await refused('/v1/chat/completions', { model, messages: [{ role: 'developer', content: 'x' }, { role: 'system', content: 'y' }] }, 'messages: must have a user or assistant message');
      }
      await refused('/v1/messages', { model: 'svc-vision', messages: [{ role: 'system', content: 'You are terse.' }] }, 'messages: must have a user or assistant message');
    });

    it('and on responses, unless it continues a stored response', async () => {
      await refused('/v1/responses', { model: 'svc-vision', input: [{ role: 'developer', content: 'You are terse.' }] }, 'input: must have a user or assistant message');
      g.anthropic.chat.enqueue({ text: 'First.' });
      const first = (await openai.responses.create({ model: 'svc-vision', input: 'Say something.' })).id;
      g.anthropic.chat.enqueue({ text: 'Second.' });
      const next = await openai.responses.create({ model: 'svc-vision', previous_response_id: first, input: [{ role: 'developer', content: 'Now in French.' }] });
      assert.equal(next.output_text, 'Second.');
    });
  });

  describe('blank text sent back to an Anthropic upstream', () => {
    const tools = [{ type: 'function', function: { name: 'weather', parameters: { type: 'object', properties: {} } } }];

    it('an assistant turn of whitespace before its tool call (as models answer) goes without the blank block', async () => {
      g.anthropic.chat.enqueue({ text: 'Sunny.' });
      const r = await post('/v1/chat/completions', {
        model: 'svc-vision',
        tools,
        messages: [
          { role: 'user', content: 'Weather?' },
          { role: 'assistant', content: '\n\n', tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'weather', arguments: '{}' } }] },
          { role: 'tool', tool_call_id: 'call_1', content: 'sunny' },
        ],
      });
      assert.equal(r.status, 200, await r.clone().text());
      const sent = g.anthropic.requests.at(-1)!.body as { messages: { role: string; content: { type: string }[] }[] };
      assert.deepEqual(sent.messages[1]!.content.map((b) => b.type), ['tool_use']);
    });

    it('the same through messages, and a blank system text is no system prompt', async () => {
      g.anthropic.chat.enqueue({ text: 'Sunny.' });
      const m = await anthropic.messages.create({
        model: 'svc-vision',
        max_tokens: 50,
        system: [{ type: 'text', text: ' ' }],
        tools: [{ name: 'weather', input_schema: { type: 'object' } }],
        messages: [
          { role: 'user', content: 'Weather?' },
          { role: 'assistant', content: [{ type: 'text', text: '\n' }, { type: 'tool_use', id: 'toolu_1', name: 'weather', input: {} }] },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'sunny' }] },
        ],
      });
      assert.equal((m.content[0] as { text: string }).text, 'Sunny.');
      const sent = g.anthropic.requests.at(-1)!.body as { system?: unknown; messages: { content: { type: string }[] }[] };
      assert.equal(sent.system, undefined);
      assert.deepEqual(sent.messages[1]!.content.map((b) => b.type), ['tool_use']);
    });
  });

  describe('embeddings dimensions', () => {
    it('above the dimensions of the embedding model is a 400 naming dimensions; up to them it is passed on', async () => {
      await refused('/v1/embeddings', { model: 'svc-embed', input: 'hello', dimensions: 1537 }, 'dimensions: must be <= 1536 for model svc-embed');
      await refused('/v1/embeddings', { model: 'svc-embed', input: 'hello', dimensions: 3072 }, 'dimensions: must be <= 1536 for model svc-embed');
      await assert.rejects(openai.embeddings.create({ model: 'svc-embed', input: 'hello', dimensions: 100_000 }), (e: unknown) => e instanceof OpenAI.BadRequestError);
      const e = await openai.embeddings.create({ model: 'svc-embed', input: 'hello', dimensions: 1536 });
      assert.equal(e.data[0]!.embedding.length, 1536);
      assert.equal((g.openai.requests.at(-1)!.body as { dimensions: number }).dimensions, 1536);
    });

    it('GET /v1/available-models shows them', async () => {
      const r = await fetch(`${g.t.url}/v1/available-models`, { headers: { authorization: `Bearer ${acct.key}` } });
      const { data } = (await r.json()) as { data: { id: string; dimensions: number | null }[] };
      const byId = new Map(data.map((m) => [m.id, m]));
      assert.equal(byId.get('svc-embed')!.dimensions, 1536);
      assert.equal(byId.get('svc-fast')!.dimensions, null);
    });
  });
});
