import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { accountCredits, startWithSdks, usageRows, type Gateway } from './helpers/gateway.ts';
import { auditRequests } from './helpers/spec-audit.ts';
import { createTestAccount, type TestAccount } from './helpers/inference.ts';

/**
 * Findings of a fourth audit of inference-api.md and the protocols it mirrors (docs/api-decisions.md,
 * "Inference: fourth audit"): `tool_choice` without tools, an Anthropic prefill ending in
 * whitespace, `max_output_tokens` below OpenAI's minimum, and empty embeddings inputs. Every
 * refusal is the documented `{"error": "<field>: ..."}` 400, before any hold or upstream call.
 */
describe('inference-api.md, fourth audit', () => {
  let g: Gateway;
  let acct: TestAccount;
  let anthropic: Anthropic;
  let openai: OpenAI;

  before(async () => void ({ g, acct, anthropic, openai } = await startWithSdks()));
  after(() => g.close());

  const { refused, answered } = auditRequests(() => ({ g, key: acct.key }));

  const hi = [{ role: 'user', content: 'hi' }];
  const chatTool = { type: 'function', function: { name: 'weather', parameters: { type: 'object', properties: {} } } };

  describe('tool_choice without tools', () => {
    it('is a 400 naming tool_choice on chat completions, whatever its value, as OpenAI answers', async () => {
      const error = 'tool_choice: is only allowed when tools are specified';
      for (const model of ['svc-fast', 'svc-vision']) {
        for (const tool_choice of ['auto', 'none', 'required', { type: 'function', function: { name: 'weather' } }]) {
          await refused('/v1/chat/completions', { model, messages: hi, tool_choice }, error);
          await refused('/v1/chat/completions', { model, messages: hi, tools: [], tool_choice }, error);
        }
      }
      await assert.rejects(
        openai.chat.completions.create({ model: 'svc-fast', messages: [{ role: 'user', content: 'hi' }], tool_choice: 'auto' }),
        (e: unknown) => e instanceof OpenAI.BadRequestError && e.message.includes(error),
      );
      // A value that is none of OpenAI's is named as such first.
      await refused('/v1/chat/completions', { model: 'svc-fast', messages: hi, tool_choice: 'sometimes' }, 'tool_choice: must be one of auto, none, required or a function choice');
    });

    it('chat completions: tool_choice null is no tool_choice, and next to tools every value is taken', async () => {
      await answered('/v1/chat/completions', { model: 'svc-fast', messages: hi, tool_choice: null });
      for (const tool_choice of ['auto', 'none', 'required', { type: 'function', function: { name: 'weather' } }]) {
        await answered('/v1/chat/completions', { model: 'svc-fast', messages: hi, tools: [chatTool], tool_choice });
      }
      g.openai.chat.enqueue({ text: 'ok' });
      const c = await openai.chat.completions.create({ model: 'svc-fast', messages: [{ role: 'user', content: 'hi' }], tools: [chatTool as OpenAI.ChatCompletionTool], tool_choice: 'auto' });
      assert.equal(c.choices[0]!.message.content, 'ok');
    });

    it('responses: required is a 400 naming tool_choice, as OpenAI answers; auto and none (what no tools means) are taken', async () => {
      await refused('/v1/responses', { model: 'svc-fast', input: 'hi', tool_choice: 'required' }, 'tool_choice: required is only allowed when tools are specified');
      await refused('/v1/responses', { model: 'svc-fast', input: 'hi', tools: [], tool_choice: 'required' }, 'tool_choice: required is only allowed when tools are specified');
      await refused('/v1/responses', { model: 'svc-fast', input: 'hi', tool_choice: { type: 'function', name: 'weather' } }, 'tool_choice.name: no function named "weather" in tools');
      await assert.rejects(openai.responses.create({ model: 'svc-fast', input: 'hi', tool_choice: 'required' }), (e: unknown) => e instanceof OpenAI.BadRequestError);
      for (const tool_choice of ['auto', 'none']) {
        g.openai.chat.enqueue({ text: 'ok' });
        const r = await openai.responses.create({ model: 'svc-fast', input: 'hi', tool_choice: tool_choice as 'auto' | 'none' });
        assert.equal(r.output_text, 'ok');
        assert.equal(r.tool_choice, tool_choice);
      }
      g.openai.chat.enqueue({ text: 'ok' });
      const withTools = await openai.responses.create({ model: 'svc-fast', input: 'hi', tools: [{ type: 'function', name: 'weather', parameters: { type: 'object', properties: {} }, strict: false }], tool_choice: 'required' });
      assert.equal(withTools.tool_choice, 'required');
    });

    it('messages: auto, any and tool are a 400 naming tool_choice, as Anthropic answers; none (what no tools means) is taken', async () => {
      const error = 'tool_choice: may only be specified while providing tools';
      for (const model of ['svc-vision', 'svc-fast']) {
        for (const tool_choice of [{ type: 'auto' }, { type: 'auto', disable_parallel_tool_use: true }, { type: 'any' }, { type: 'tool', name: 'weather' }, 'auto', 'any', 'required']) {
          await refused('/v1/messages', { model, max_tokens: 10, messages: hi, tool_choice }, error);
          await refused('/v1/messages', { model, max_tokens: 10, messages: hi, tools: [], tool_choice }, error);
        }
      }
      await assert.rejects(
        anthropic.messages.create({ model: 'svc-vision', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }], tool_choice: { type: 'auto' } }),
        (e: unknown) => e instanceof Anthropic.BadRequestError,
      );
      for (const tool_choice of [{ type: 'none' }, 'none', null]) {
        await answered('/v1/messages', { model: 'svc-vision', max_tokens: 10, messages: hi, tool_choice }, 'anthropic');
        const sent = g.anthropic.requests.at(-1)!.body as Record<string, unknown>;
        assert.equal(sent.tool_choice, undefined, 'no tools, no tool_choice upstream');
      }
      g.anthropic.chat.enqueue({ text: 'ok' });
      const m = await anthropic.messages.create({
        model: 'svc-vision',
        max_tokens: 10,
        messages: [{ role: 'user', content: 'hi' }],
        tools: [{ name: 'weather', input_schema: { type: 'object' } }],
        tool_choice: { type: 'auto' },
      });
      assert.equal((m.content[0] as { text: string }).text, 'ok');
    });
  });

  describe('an assistant prefill ending in whitespace on /v1/messages', () => {
    const error = (i: number) => `messages[${i}].content: final assistant content cannot end with trailing whitespace`;

    it('is a 400 naming the message, as Anthropic answers, on every model, before any upstream call and unbilled', async () => {
      const fresh = await createTestAccount(g.t, { credits: 1000 });
      const credits = await accountCredits(g.t, fresh.id);
      for (const model of ['svc-vision', 'svc-fast', 'svc-pro', 'svc-shiplow']) {
        for (const content of ['The answer is ', 'Sure:\n', [{ type: 'text', text: '{"a": ' }, { type: 'text', text: '1,\t' }], [{ type: 'text', text: '  ' }]]) {
          await refused('/v1/messages', { model, max_tokens: 10, messages: [{ role: 'user', content: 'Answer in JSON.' }, { role: 'assistant', content }] }, error(1), fresh.key);
        }
      }
      // A system turn after the prefill does not change which turn is final.
      await refused(
        '/v1/messages',
        { model: 'svc-vision', max_tokens: 10, messages: [{ role: 'user', content: 'Hi' }, { role: 'assistant', content: 'Well, ' }, { role: 'system', content: 'Be brief.' }] },
        error(1),
        fresh.key,
      );
      // count_tokens reads the body as messages does.
      await refused('/v1/messages/count_tokens', { model: 'svc-vision', messages: [{ role: 'user', content: 'Hi' }, { role: 'assistant', content: 'Well, ' }] }, error(1), fresh.key);
      const sdk = new Anthropic({ apiKey: fresh.key, baseURL: `${g.t.url}/inference`, maxRetries: 0 });
      await assert.rejects(
        sdk.messages.create({ model: 'svc-vision', max_tokens: 10, messages: [{ role: 'user', content: 'Hi' }, { role: 'assistant', content: 'Hello ' }] }),
        (e: unknown) => e instanceof Anthropic.BadRequestError && e.message.includes(error(1)),
      );
      await assert.rejects(
        sdk.messages.stream({ model: 'svc-vision', max_tokens: 10, messages: [{ role: 'user', content: 'Hi' }, { role: 'assistant', content: 'Hello\n' }] }).finalMessage(),
        (e: unknown) => e instanceof Anthropic.BadRequestError,
      );
      assert.deepEqual(await accountCredits(g.t, fresh.id), credits);
      assert.deepEqual((await usageRows(g.t, fresh.id)).filter((u) => u.cost_micro !== '0'), []);
    });

    it('a prefill without trailing whitespace, whitespace earlier in the conversation and a final user turn are answered', async () => {
      g.anthropic.chat.enqueue({ text: ' 42}' });
      const m = await anthropic.messages.create({
        model: 'svc-vision',
        max_tokens: 10,
        messages: [{ role: 'user', content: 'Answer in JSON.' }, { role: 'assistant', content: '{"answer":' }],
      });
      assert.equal((m.content[0] as { text: string }).text, ' 42}');
      const sent = g.anthropic.requests.at(-1)!.body as { messages: { role: string; content: unknown }[] };
      assert.equal(sent.messages.at(-1)!.role, 'assistant');
      await answered(
        '/v1/messages',
        { model: 'svc-vision', max_tokens: 10, messages: [{ role: 'user', content: 'Hi' }, { role: 'assistant', content: 'Hello! ' }, { role: 'user', content: 'Again.' }] },
        'anthropic',
      );
      await answered('/v1/messages', { model: 'svc-fast', max_tokens: 10, messages: [{ role: 'user', content: 'Hi ' }] });
    });
  });

  describe('max_output_tokens below 16 on /v1/responses', () => {
    it('is a 400 naming max_output_tokens, as OpenAI answers; 16 is taken', async () => {
      for (const n of [1, 15]) {
        await refused('/v1/responses', { model: 'svc-fast', input: 'hi', max_output_tokens: n }, 'max_output_tokens: must be >= 16');
        await refused('/v1/responses', { model: 'svc-vision', input: 'hi', max_output_tokens: n, stream: true }, 'max_output_tokens: must be >= 16');
      }
      await assert.rejects(openai.responses.create({ model: 'svc-fast', input: 'hi', max_output_tokens: 8 }), (e: unknown) => e instanceof OpenAI.BadRequestError);
      g.openai.chat.enqueue({ text: 'ok' });
      const r = await openai.responses.create({ model: 'svc-fast', input: 'hi', max_output_tokens: 16 });
      assert.equal(r.max_output_tokens, 16);
      assert.equal((g.openai.requests.at(-1)!.body as { max_tokens: number }).max_tokens, 16);
    });

    it('/openapi.json gives the minimum', async () => {
      const doc = (await (await fetch(`${g.t.url}/openapi.json`)).json()) as {
        paths: Record<string, { post: { requestBody: { content: { 'application/json': { schema: { properties: Record<string, unknown> } } } } } }>;
      };
      for (const path of ['/v1/responses', '/inference/v1/responses']) {
        const field = doc.paths[path]!.post.requestBody.content['application/json'].schema.properties.max_output_tokens;
        assert.deepEqual(field, { type: 'integer', minimum: 16 }, path);
      }
    });
  });

  describe('empty and blank embeddings inputs', () => {
    it('an empty string, alone or among others, is a 400 naming it, as OpenAI refuses it, before any upstream call', async () => {
      await refused('/v1/embeddings', { model: 'svc-embed', input: '' }, 'input: must not be empty');
      await refused('/v1/embeddings', { model: 'svc-embed', input: ['ok', ''] }, 'input[1]: must not be empty');
      await refused('/v1/embeddings', { model: 'svc-embed', input: [''] }, 'input[0]: must not be empty');
      await assert.rejects(openai.embeddings.create({ model: 'svc-embed', input: ['ok', ''] }), (e: unknown) => e instanceof OpenAI.BadRequestError);
    });

    it('whitespace is text: it is embedded as sent, as OpenAI embeds it', async () => {
      const one = await openai.embeddings.create({ model: 'svc-embed', input: ' ' });
      assert.equal(one.data.length, 1);
      assert.deepEqual((g.openai.requests.at(-1)!.body as { input: unknown }).input, [' ']);
      const two = await openai.embeddings.create({ model: 'svc-embed', input: ['ok', ' \n\t'] });
      assert.deepEqual(two.data.map((d) => d.index), [0, 1]);
      assert.deepEqual((g.openai.requests.at(-1)!.body as { input: unknown }).input, ['ok', ' \n\t']);
    });
  });
});
