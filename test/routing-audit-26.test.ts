import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { FAKE_ANTHROPIC_KEY } from './fakes/fake-anthropic.ts';
import { FAKE_OPENAI_KEY } from './fakes/fake-openai.ts';
import { startGateway, type Gateway } from './helpers/gateway.ts';
import { createTestAccount, type TestAccount } from './helpers/inference.ts';
import { sdkAnswer, streamModel, streamedAnswer, type RoutedAnswer } from './helpers/routing.ts';

/**
 * The lanes a new user's everyday requests get on the shipped catalog, through the official SDKs
 * (docs/api-decisions.md, "Routing: session 26 audit").
 */

function shippedCatalog(f: { openai: { baseUrl: string }; anthropic: { url: string } }): string {
  return readFileSync(new URL('../config/default.yaml', import.meta.url), 'utf8')
    .replace('${OPENAI_BASE_URL:-https://api.openai.com/v1}', f.openai.baseUrl)
    .replace('${OPENAI_API_KEY}', FAKE_OPENAI_KEY)
    .replace('${ANTHROPIC_BASE_URL:-https://api.anthropic.com}', f.anthropic.url)
    .replace('${ANTHROPIC_API_KEY}', FAKE_ANTHROPIC_KEY)
    .replace(/^resilience:[\s\S]*$/m, 'resilience: { max_retries: 0 }\n');
}

describe('routing: session 26 audit', () => {
  let g: Gateway;
  let acct: TestAccount;
  let openai: OpenAI;
  let anthropic: Anthropic;

  before(async () => {
    g = await startGateway({ catalog: shippedCatalog, env: { RATE_LIMIT_INFERENCE_PER_MINUTE: '100000' } });
    acct = await createTestAccount(g.t, { credits: 100_000 });
    openai = g.client(acct.key);
    anthropic = new Anthropic({ apiKey: acct.key, baseURL: `${g.t.url}/inference`, maxRetries: 0 });
  });
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
