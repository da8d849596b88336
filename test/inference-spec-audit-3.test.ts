import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import OpenAI from 'openai';
import { startGateway, type Gateway } from './helpers/gateway.ts';
import { createTestAccount, type TestAccount } from './helpers/inference.ts';

/**
 * Findings of a third audit of inference-api.md (docs/api-decisions.md, "Inference: third audit"):
 * `stream_options` without a stream.
 */
describe('inference-api.md, third audit', () => {
  let g: Gateway;
  let acct: TestAccount;
  let openai: OpenAI;

  before(async () => {
    g = await startGateway({ env: { RATE_LIMIT_INFERENCE_PER_MINUTE: '10000' } });
    acct = await createTestAccount(g.t, { credits: 100_000 });
    openai = g.client(acct.key);
  });
  after(() => g.close());

  const post = (path: string, body: unknown) =>
    fetch(`${g.t.url}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${acct.key}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
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
});
