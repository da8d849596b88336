import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { charged } from './helpers/books.ts';
import { startWithSdks, type Gateway } from './helpers/gateway.ts';
import type { TestAccount } from './helpers/inference.ts';

/**
 * Findings of a ninth audit of the inference API, tried as a new user would with the official
 * clients and plain HTTP (docs/api-decisions.md, "Inference: ninth audit").
 */
describe('inference API, ninth audit', () => {
  let g: Gateway;
  let acct: TestAccount;
  let openai: OpenAI;
  let anthropic: Anthropic;

  before(async () => void ({ g, acct, openai, anthropic } = await startWithSdks()));
  after(() => g.close());

  const hi = [{ role: 'user' as const, content: 'hi' }];

  describe('an upstream that refuses the service\'s own account for billing (402: out of credits at the upstream)', () => {
    // What OpenRouter answers an account without credits; DeepSeek's "Insufficient Balance" is a 402 too.
    const broke = { status: 402, message: 'Insufficient credits. This account never purchased credits. Make sure your key is on the correct account or org, and if so, purchase more at https://openrouter.ai/settings/credits' };

    it('is a 502 upstream failure with a message of the service\'s own, not a 400 blaming the client\'s request; unbilled', async () => {
      g.openai.chat.enqueue({ error: broke });
      const { charge, row } = await charged(g, acct, () =>
        assert.rejects(openai.chat.completions.create({ model: 'svc-fast', messages: hi }), (e: unknown) => {
          assert.ok(e instanceof OpenAI.APIError);
          assert.equal(e.status, 502);
          // The SDK's `error` is the body's `error` field: the service's message, not the upstream's.
          assert.equal(e.error, 'the upstream refused the service\'s account (billing); try again later');
          return true;
        }),
      );
      assert.deepEqual([charge, row.status, row.usage_source], [0n, 502, null]);
    });

    it('the same streamed, and on the messages route in the Anthropic client', async () => {
      g.openai.chat.enqueue({ error: broke });
      await assert.rejects(openai.chat.completions.create({ model: 'svc-fast', messages: hi, stream: true }), (e: unknown) => e instanceof OpenAI.APIError && e.status === 502);
      g.anthropic.chat.enqueue({ error: { status: 402, type: 'billing_error', message: 'Your credit balance is too low to access the Anthropic API.' } });
      await assert.rejects(anthropic.messages.create({ model: 'svc-vision', max_tokens: 50, messages: hi }), (e: unknown) => (e as { status?: number }).status === 502);
    });

    it('OpenAI\'s own way of saying it, a 429 of type insufficient_quota, is the same 502: no rate limit to wait out, nothing for the SDK to retry', async () => {
      g.openai.chat.enqueue({
        error: { status: 429, type: 'insufficient_quota', message: 'You exceeded your current quota, please check your plan and billing details. For more information on this error, read the docs: https://platform.openai.com/docs/guides/error-codes/api-errors.' },
      });
      const { charge } = await charged(g, acct, () =>
        assert.rejects(openai.chat.completions.create({ model: 'svc-fast', messages: hi }), (e: unknown) => {
          assert.ok(e instanceof OpenAI.APIError);
          assert.equal(e.status, 502);
          assert.equal(e.error, 'the upstream refused the service\'s account (billing); try again later');
          assert.equal(e.headers.get('retry-after'), null);
          return true;
        }),
      );
      assert.equal(charge, 0n);
      // A plain rate limit stays a 429 with its retry-after.
      g.openai.chat.enqueue({ error: { status: 429, type: 'requests', message: 'Rate limit reached for requests' } });
      await assert.rejects(openai.chat.completions.create({ model: 'svc-fast', messages: hi }), (e: unknown) => e instanceof OpenAI.RateLimitError && e.headers.get('retry-after') === '1');
    });

    it('falls back to the model\'s next deployment, as any upstream failure that is not the request\'s fault', async () => {
      // svc-pro: Anthropic first, then the OpenAI-compatible fallback.
      g.anthropic.chat.enqueue({ error: { status: 402, type: 'billing_error', message: 'Your credit balance is too low to access the Anthropic API.' } });
      g.openai.chat.enqueue({ text: 'served by the fallback' });
      const r = await openai.chat.completions.create({ model: 'svc-pro', messages: hi });
      assert.equal(r.choices[0]!.message.content, 'served by the fallback');
    });
  });

  describe('errors no retry clears carry x-should-retry: false, which both SDKs honour (docs/api-decisions.md, "Errors no retry clears")', () => {
    it('the upstream refusing the service\'s account: an SDK left at its default retries sends the request once', async () => {
      // One refusal queued: a retry of the SDK's would find the upstream answering, and succeed.
      g.openai.chat.enqueue({ error: { status: 402, message: 'Insufficient credits.' } });
      const retrying = new OpenAI({ apiKey: acct.key, baseURL: `${g.t.url}/v1` });
      await assert.rejects(retrying.chat.completions.create({ model: 'svc-fast', messages: hi }), (e: unknown) => {
        assert.ok(e instanceof OpenAI.APIError);
        assert.equal(e.status, 502);
        assert.equal(e.headers.get('x-should-retry'), 'false');
        return true;
      });
      g.anthropic.chat.enqueue({ error: { status: 401, type: 'authentication_error', message: 'invalid x-api-key' } });
      g.openai.chat.enqueue({ error: { status: 403, message: 'Project does not have access to model' } });
      const r = await fetch(`${g.t.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${acct.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'svc-pro', messages: hi }),
      });
      assert.equal(r.status, 502, await r.clone().text());
      assert.equal(r.headers.get('x-should-retry'), 'false');
    });
  });

  describe('a usage object without the token counts (an OpenAI-compatible server\'s `usage: {}`)', () => {
    for (const stream of [false, true]) {
      it(`is no usage: the answer is billed from the tokenizer's estimate, not as zero tokens (${stream ? 'streamed' : 'not streamed'})`, async () => {
        g.openai.chat.enqueue({ text: 'An answer whose usage says nothing.', rawUsage: { total_tokens: 'n/a' } });
        const { charge, row } = await charged(g, acct, async () => {
          if (!stream) return openai.chat.completions.create({ model: 'svc-fast', messages: hi });
          for await (const _c of await openai.chat.completions.create({ model: 'svc-fast', messages: hi, stream: true })) {
            // read to the end
          }
        });
        assert.equal(row.usage_source, 'estimated');
        assert.ok(row.input_tokens > 0 && row.output_tokens > 0, JSON.stringify(row));
        assert.ok(charge > 0n);
      });
    }
  });
});
