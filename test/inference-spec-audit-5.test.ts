import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import OpenAI from 'openai';
import { FAKE_ANTHROPIC_KEY } from './fakes/fake-anthropic.ts';
import { accountCredits, startWithSdks, usageRows, type Gateway } from './helpers/gateway.ts';
import { auditRequests } from './helpers/spec-audit.ts';
import { createTestAccount, type TestAccount } from './helpers/inference.ts';

/**
 * Findings of a fifth audit of the inference API and the protocols it mirrors (docs/api-decisions.md,
 * "Inference: fifth audit"): `parallel_tool_calls` without tools on chat completions. Every refusal
 * is the documented `{"error": "<field>: ..."}` 400, before any hold or upstream call. And the fake
 * Anthropic upstream refuses what the API refuses and the gateway checks before calling it, so a
 * request that gets past the gateway's checks fails the tests instead of being answered.
 */
describe('inference API, fifth audit', () => {
  let g: Gateway;
  let acct: TestAccount;
  let openai: OpenAI;

  before(async () => void ({ g, acct, openai } = await startWithSdks()));
  after(() => g.close());

  const { post, refused, answered } = auditRequests(() => ({ g, key: acct.key }));

  const hi = [{ role: 'user', content: 'hi' }];
  const chatTool = { type: 'function', function: { name: 'weather', parameters: { type: 'object', properties: {} } } };

  describe('parallel_tool_calls without tools on chat completions', () => {
    const error = 'parallel_tool_calls: is only allowed when tools are specified';

    it('is a 400 naming parallel_tool_calls, true or false, tools absent or empty, on every model, as OpenAI answers; unbilled', async () => {
      const fresh = await createTestAccount(g.t, { credits: 1000 });
      const credits = await accountCredits(g.t, fresh.id);
      for (const model of ['svc-fast', 'svc-vision', 'svc-pro']) {
        for (const parallel_tool_calls of [true, false]) {
          await refused('/v1/chat/completions', { model, messages: hi, parallel_tool_calls }, error, fresh.key);
          await refused('/v1/chat/completions', { model, messages: hi, tools: [], parallel_tool_calls }, error, fresh.key);
          await refused('/v1/chat/completions', { model, messages: hi, tools: null, parallel_tool_calls, stream: true }, error, fresh.key);
          await refused('/inference/v1/chat/completions', { model, messages: hi, parallel_tool_calls }, error, fresh.key);
        }
      }
      const sdk = new OpenAI({ apiKey: fresh.key, baseURL: `${g.t.url}/v1`, maxRetries: 0 });
      await assert.rejects(
        sdk.chat.completions.create({ model: 'svc-fast', messages: [{ role: 'user', content: 'hi' }], parallel_tool_calls: false }),
        (e: unknown) => e instanceof OpenAI.BadRequestError && e.message.includes(error),
      );
      assert.deepEqual(await accountCredits(g.t, fresh.id), credits);
      assert.deepEqual((await usageRows(g.t, fresh.id)).filter((u) => u.cost_micro !== '0'), []);
    });

    it('a value that is not a boolean is named as such first', async () => {
      await refused('/v1/chat/completions', { model: 'svc-fast', messages: hi, parallel_tool_calls: 'yes' }, 'parallel_tool_calls: must be a boolean');
    });

    it('null is no parallel_tool_calls, and next to tools both values are taken and sent on', async () => {
      await answered('/v1/chat/completions', { model: 'svc-fast', messages: hi, parallel_tool_calls: null });
      assert.equal((g.openai.requests.at(-1)!.body as Record<string, unknown>).parallel_tool_calls, undefined);
      for (const parallel_tool_calls of [true, false]) {
        await answered('/v1/chat/completions', { model: 'svc-fast', messages: hi, tools: [chatTool], parallel_tool_calls });
        assert.equal((g.openai.requests.at(-1)!.body as Record<string, unknown>).parallel_tool_calls, parallel_tool_calls);
      }
      // An Anthropic upstream gets it as disable_parallel_tool_use.
      await answered('/v1/chat/completions', { model: 'svc-vision', messages: hi, tools: [chatTool], parallel_tool_calls: false }, 'anthropic');
      assert.deepEqual((g.anthropic.requests.at(-1)!.body as Record<string, unknown>).tool_choice, { type: 'auto', disable_parallel_tool_use: true });
      g.openai.chat.enqueue({ text: 'ok' });
      const c = await openai.chat.completions.create({
        model: 'svc-fast',
        messages: [{ role: 'user', content: 'hi' }],
        tools: [chatTool as OpenAI.ChatCompletionTool],
        parallel_tool_calls: false,
      });
      assert.equal(c.choices[0]!.message.content, 'ok');
    });

    it('responses keep taking it without tools (it is echoed on every response)', async () => {
      for (const parallel_tool_calls of [true, false]) {
        g.openai.chat.enqueue({ text: 'ok' });
        const r = await openai.responses.create({ model: 'svc-fast', input: 'hi', parallel_tool_calls });
        assert.equal(r.output_text, 'ok');
        assert.equal(r.parallel_tool_calls, parallel_tool_calls);
      }
    });
  });

  describe('the fake Anthropic upstream', () => {
    /** POSTs a Messages body straight to the fake, as the gateway's Anthropic adapter does. */
    async function fake(body: Record<string, unknown>): Promise<{ status: number; body: Record<string, unknown> }> {
      g.anthropic.chat.enqueue({ text: 'ok' });
      const r = await fetch(`${g.anthropic.url}/v1/messages`, {
        method: 'POST',
        headers: { 'x-api-key': FAKE_ANTHROPIC_KEY, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'claude-sonnet-4-5', max_tokens: 10, ...body }),
      });
      return { status: r.status, body: (await r.json()) as Record<string, unknown> };
    }

    /** The API's 400: `{"type": "error", "error": {"type": "invalid_request_error", message}}`. */
    async function fakeRefuses(body: Record<string, unknown>, message: string): Promise<void> {
      const r = await fake(body);
      assert.equal(r.status, 400, JSON.stringify(body));
      assert.equal(r.body.type, 'error');
      assert.deepEqual(r.body.error, { type: 'invalid_request_error', message }, JSON.stringify(body));
    }

    async function fakeAnswers(body: Record<string, unknown>): Promise<void> {
      const r = await fake(body);
      assert.equal(r.status, 200, `${JSON.stringify(body)}: ${JSON.stringify(r.body)}`);
    }

    const user = { role: 'user', content: 'Answer in JSON.' };
    const tool = { name: 'weather', input_schema: { type: 'object' } };

    it('refuses a final assistant turn whose text ends in whitespace, as a string or in its last text block, streamed or not', async () => {
      const message = 'messages: final assistant content cannot end with trailing whitespace';
      for (const content of ['The answer is ', 'Sure:\n', '{"a":\t', [{ type: 'text', text: '{"a": ' }], [{ type: 'text', text: 'One.' }, { type: 'text', text: 'Two ' }]]) {
        await fakeRefuses({ messages: [user, { role: 'assistant', content }] }, message);
        await fakeRefuses({ messages: [user, { role: 'assistant', content }], stream: true }, message);
      }
    });

    it('answers a prefill without trailing whitespace, whitespace earlier in the conversation, a final user turn ending in it, and a final tool call', async () => {
      await fakeAnswers({ messages: [user, { role: 'assistant', content: '{"answer":' }] });
      await fakeAnswers({ messages: [user, { role: 'assistant', content: [{ type: 'text', text: 'Two ' }, { type: 'text', text: 'words' }] }] });
      await fakeAnswers({ messages: [user, { role: 'assistant', content: 'Hello! ' }, { role: 'user', content: 'Again. ' }] });
      await fakeAnswers({
        tools: [tool],
        messages: [user, { role: 'assistant', content: [{ type: 'text', text: 'Let me look. ' }, { type: 'tool_use', id: 'toolu_1', name: 'weather', input: {} }] }],
      });
    });

    it('refuses tool_choice auto, any and tool without tools; none, and every choice next to tools, are answered', async () => {
      const message = 'tool_choice: may only be specified while providing tools';
      for (const tool_choice of [{ type: 'auto' }, { type: 'auto', disable_parallel_tool_use: true }, { type: 'any' }, { type: 'tool', name: 'weather' }]) {
        await fakeRefuses({ messages: [user], tool_choice }, message);
        await fakeRefuses({ messages: [user], tools: [], tool_choice }, message);
        await fakeAnswers({ messages: [user], tools: [tool], tool_choice });
      }
      await fakeAnswers({ messages: [user], tool_choice: { type: 'none' } });
    });

    it('chat completions and responses still send a prefill ending in whitespace as it came: an Anthropic-served model answers the API’s 400, unbilled', async () => {
      // The fourth audit left these as they are (docs/api-decisions.md); the fake now answers them as the API does.
      const fresh = await createTestAccount(g.t, { credits: 1000 });
      const credits = await accountCredits(g.t, fresh.id);
      const error = { error: 'messages: final assistant content cannot end with trailing whitespace' };
      const prefill = [{ role: 'user', content: 'hi' }, { role: 'assistant', content: 'Well, ' }];
      for (const [path, body] of [
        ['/v1/chat/completions', { model: 'svc-vision', messages: prefill }],
        ['/v1/chat/completions', { model: 'svc-pro', messages: prefill, stream: true }],
        ['/v1/responses', { model: 'svc-vision', input: prefill }],
      ] as const) {
        const calls = g.anthropic.requests.length;
        g.anthropic.chat.enqueue({ text: 'ok' });
        const r = await post(path, body, fresh.key);
        assert.equal(r.status, 400, path);
        assert.deepEqual(await r.json(), error, path);
        assert.equal(g.anthropic.requests.length, calls + 1, `${path}: the request reached the Anthropic upstream`);
      }
      assert.deepEqual(await accountCredits(g.t, fresh.id), credits);
      assert.deepEqual((await usageRows(g.t, fresh.id)).filter((u) => u.cost_micro !== '0'), []);
    });
  });
});
