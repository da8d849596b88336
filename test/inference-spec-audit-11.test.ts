import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { charged } from './helpers/books.ts';
import { startWithSdks, type Gateway } from './helpers/gateway.ts';
import type { TestAccount } from './helpers/inference.ts';

/**
 * Findings of an eleventh audit of the inference API, tried as a new user would with the official
 * `openai` and `@anthropic-ai/sdk` clients and plain HTTP (docs/api-decisions.md, "Inference:
 * eleventh audit").
 */
describe('inference API, eleventh audit', () => {
  let g: Gateway;
  let acct: TestAccount;
  let openai: OpenAI;
  let anthropic: Anthropic;

  before(async () => void ({ g, acct, openai, anthropic } = await startWithSdks()));
  after(() => g.close());

  const hi = [{ role: 'user' as const, content: 'hi' }];
  const upstreamCalls = () => g.openai.requests.length + g.anthropic.requests.length;

  describe('Anthropic\'s out-of-credits 400 (the service\'s own upstream account, not the client\'s request)', () => {
    // What Anthropic answers an organisation whose prepaid credits ran out: a 400, not its 402 billing_error.
    const creditLow = {
      status: 400,
      type: 'invalid_request_error',
      message: 'Your credit balance is too low to access the Anthropic API. Please go to Plans & Billing to upgrade or purchase credits.',
    };
    const BILLING = 'the upstream refused the service\'s account (billing); try again later';

    it('is the 502 of OpenAI\'s insufficient_quota on /v1/messages, with x-should-retry: false, unbilled', async () => {
      for (const stream of [false, true]) {
        g.anthropic.chat.enqueue({ error: creditLow });
        // An SDK left at its default retries: x-should-retry: false makes it send the request once.
        const retrying = new Anthropic({ apiKey: acct.key, baseURL: `${g.t.url}/inference` });
        const before = g.anthropic.requests.length;
        const { charge, row } = await charged(g, acct, () =>
          assert.rejects(
            (async () => {
              if (!stream) return retrying.messages.create({ model: 'svc-vision', max_tokens: 50, messages: hi });
              return retrying.messages.stream({ model: 'svc-vision', max_tokens: 50, messages: hi }).finalMessage();
            })(),
            (e: unknown) => {
              assert.ok(e instanceof Anthropic.APIError, String(e));
              assert.equal(e.status, 502);
              assert.deepEqual(e.error, { error: BILLING });
              assert.equal(e.headers?.get('x-should-retry'), 'false');
              return true;
            },
          ),
        );
        assert.deepEqual([charge, row.status, row.usage_source], [0n, 502, null], `stream ${stream}`);
        assert.equal(g.anthropic.requests.length, before + 1, `stream ${stream}`);
      }
    });

    it('is the same 502 on /v1/chat/completions of a model served by Anthropic', async () => {
      for (const stream of [false, true]) {
        g.anthropic.chat.enqueue({ error: creditLow });
        await assert.rejects(
          (async () => {
            if (!stream) return openai.chat.completions.create({ model: 'svc-vision', messages: hi });
            for await (const _ of await openai.chat.completions.create({ model: 'svc-vision', messages: hi, stream: true })) void _;
          })(),
          (e: unknown) => {
            assert.ok(e instanceof OpenAI.APIError, String(e));
            assert.equal(e.status, 502);
            assert.equal(e.error, BILLING);
            assert.equal(e.headers.get('x-should-retry'), 'false');
            return true;
          },
        );
      }
    });

    it('falls back to the model\'s next deployment (svc-pro: Anthropic, then OpenAI), on both protocols', async () => {
      g.anthropic.chat.enqueue({ error: creditLow });
      g.openai.chat.enqueue({ text: 'served by the fallback' });
      const chat = await openai.chat.completions.create({ model: 'svc-pro', messages: hi });
      assert.equal(chat.choices[0]!.message.content, 'served by the fallback');

      g.anthropic.chat.enqueue({ error: creditLow });
      g.openai.chat.enqueue({ text: 'served by the fallback' });
      const msg = await anthropic.messages.create({ model: 'svc-pro', max_tokens: 50, messages: hi });
      assert.deepEqual(msg.content, [{ type: 'text', text: 'served by the fallback', citations: null }].map(({ type, text }) => ({ type, text })));
    });

    it('another invalid_request_error stays the client\'s 400', async () => {
      const before = upstreamCalls();
      g.anthropic.chat.enqueue({ error: { status: 400, type: 'invalid_request_error', message: 'messages: text content blocks must be non-empty' } });
      await assert.rejects(anthropic.messages.create({ model: 'svc-pro', max_tokens: 50, messages: hi }), (e: unknown) => e instanceof Anthropic.BadRequestError);
      // No fallback for the request's own fault.
      assert.equal(upstreamCalls(), before + 1);
    });
  });
});
