import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import OpenAI from 'openai';
import { accountCredits, postJson, startWithSdks, usageRows, type Gateway } from './helpers/gateway.ts';
import { createTestAccount, type TestAccount } from './helpers/inference.ts';

/**
 * Findings of a fifth audit of the inference API and the protocols it mirrors (docs/api-decisions.md,
 * "Inference: fifth audit"): `parallel_tool_calls` without tools on chat completions. Every refusal
 * is the documented `{"error": "<field>: ..."}` 400, before any hold or upstream call.
 */
describe('inference API, fifth audit', () => {
  let g: Gateway;
  let acct: TestAccount;
  let openai: OpenAI;

  before(async () => void ({ g, acct, openai } = await startWithSdks()));
  after(() => g.close());

  const post = (path: string, body: unknown, key = acct.key) => postJson(g, key, path, body);
  const upstreamCalls = () => g.openai.requests.length + g.anthropic.requests.length;

  /** A 400 in the documented shape, with this message, and nothing sent upstream. */
  async function refused(path: string, body: unknown, error: string, key = acct.key): Promise<void> {
    const before = upstreamCalls();
    const r = await post(path, body, key);
    assert.equal(r.status, 400, `${path} ${JSON.stringify(body)}: ${await r.clone().text()}`);
    assert.deepEqual(await r.json(), { error }, `${path} ${JSON.stringify(body)}`);
    assert.equal(upstreamCalls(), before, `${path}: nothing goes upstream`);
  }

  /** The request is answered (200); the fake upstream gets one scenario for it. */
  async function answered(path: string, body: unknown, upstream: 'openai' | 'anthropic' = 'openai'): Promise<void> {
    g[upstream].chat.enqueue({ text: 'ok' });
    const r = await post(path, body);
    assert.equal(r.status, 200, `${path} ${JSON.stringify(body)}: ${await r.clone().text()}`);
    await r.arrayBuffer();
  }

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
});
