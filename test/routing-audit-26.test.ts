import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { startShippedWithSdks, type Gateway } from './helpers/gateway.ts';
import { sdkAnswer, streamModel, streamedAnswer, type RoutedAnswer } from './helpers/routing.ts';

/**
 * The lanes a new user's everyday requests get on the shipped catalog, through the official SDKs
 * (docs/api-decisions.md, "Routing: session 26 audit").
 */

describe('routing: session 26 audit', () => {
  let g: Gateway;
  let openai: OpenAI;
  let anthropic: Anthropic;

  before(async () => void ({ g, openai, anthropic } = await startShippedWithSdks()));
  after(() => g.close());

  const lanes = (a: RoutedAnswer) => [a.model, a.header('x-svc-lane'), a.header('x-svc-model')];

  describe('everyday questions that name a product spelled like an identifier are general, not code', () => {
    const QUESTIONS = ['What does PayPal charge for refunds?', 'Is YouTube Premium worth it?', 'How do I cancel my iPhone subscription?'];

    for (const text of QUESTIONS) {
      it(`chat completions on svc-shiplow and svc-ultra: "${text}"`, async () => {
        const shiplow = await openai.chat.completions.create({ model: 'svc-shiplow', messages: [{ role: 'user', content: text }] }).withResponse();
        assert.deepEqual(lanes(sdkAnswer(shiplow)), ['svc-shiplow', 'general', 'svc-fast']);
        const ultra = await openai.chat.completions.create({ model: 'svc-ultra', messages: [{ role: 'user', content: text }] }).withResponse();
        assert.deepEqual(lanes(sdkAnswer(ultra)), ['svc-ultra', 'general', 'svc-pro']);
      });
    }

    it('responses, streamed, and messages', async () => {
      const streamed = await streamedAnswer(openai.responses.create({ model: 'svc-shiplow', input: QUESTIONS[0]!, stream: true }).withResponse(), streamModel.responses);
      assert.deepEqual(lanes(streamed), ['svc-shiplow', 'general', 'svc-fast']);
      const messages = await anthropic.messages.create({ model: 'svc-shiplow', max_tokens: 200, messages: [{ role: 'user', content: QUESTIONS[1]! }] }).withResponse();
      assert.deepEqual(lanes(sdkAnswer(messages)), ['svc-shiplow', 'general', 'svc-fast']);
    });

    it('svc-auto reads the same lane', async () => {
      const r = await openai.chat.completions.create({ model: 'svc-auto', messages: [{ role: 'user', content: QUESTIONS[2]! }] }).withResponse();
      assert.equal(r.response.headers.get('x-svc-lane'), 'general');
    });

    it('code that names identifiers still goes to the code lane', async () => {
      const r = await openai.chat.completions.create({ model: 'svc-shiplow', messages: [{ role: 'user', content: 'Why does getElementById return null in my script?' }] }).withResponse();
      assert.deepEqual(lanes(sdkAnswer(r)), ['svc-shiplow', 'code', 'svc-fast']);
    });
  });

  it('"Say hello." is general; asking how to say it in Japanese is multilingual', async () => {
    const hello = await openai.chat.completions.create({ model: 'svc-ultra', messages: [{ role: 'user', content: 'Say hello.' }] }).withResponse();
    assert.equal(hello.response.headers.get('x-svc-lane'), 'general');
    const japanese = await openai.chat.completions.create({ model: 'svc-ultra', messages: [{ role: 'user', content: 'How do you say hello in Japanese?' }] }).withResponse();
    assert.equal(japanese.response.headers.get('x-svc-lane'), 'multilingual');
  });
});
