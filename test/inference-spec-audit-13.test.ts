import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import type OpenAI from 'openai';
import { startWithSdks, type Gateway } from './helpers/gateway.ts';
import type { TestAccount } from './helpers/inference.ts';
import { auditRequests } from './helpers/spec-audit.ts';

/**
 * Findings of a thirteenth audit of the inference API, tried as a new user would with the official
 * `openai` and `@anthropic-ai/sdk` clients and plain HTTP (docs/api-decisions.md, "Inference:
 * thirteenth audit").
 */
describe('inference API, thirteenth audit', () => {
  let g: Gateway;
  let acct: TestAccount;
  let anthropic: Anthropic;
  let openai: OpenAI;

  before(async () => void ({ g, acct, anthropic, openai } = await startWithSdks()));
  after(() => g.close());

  const { post, refused, upstreamCalls } = auditRequests(() => ({ g, key: acct.key }));

  describe('count_tokens with thinking (Anthropic\'s count_tokens takes no max_tokens)', () => {
    const messages = [{ role: 'user' as const, content: 'How many primes are below 100?' }];

    it('counts a request with a thinking budget, through the SDK and plain HTTP, with nothing sent upstream', async () => {
      const before = upstreamCalls();
      const plain = await anthropic.messages.countTokens({ model: 'svc-vision', messages });
      for (const thinking of [{ type: 'enabled' as const, budget_tokens: 2048 }, { type: 'enabled' as const, budget_tokens: 1024 }, { type: 'adaptive' as const }]) {
        const c = await anthropic.messages.countTokens({ model: 'svc-vision', messages, thinking });
        assert.equal(c.input_tokens, plain.input_tokens, JSON.stringify(thinking));
      }
      const r = await post('/inference/v1/messages/count_tokens', { model: 'svc-shiplow', messages, thinking: { type: 'enabled', budget_tokens: 16000 } });
      assert.equal(r.status, 200, await r.clone().text());
      assert.ok(((await r.json()) as { input_tokens: number }).input_tokens > 0);
      assert.equal(upstreamCalls(), before);
    });

    it('still refuses what the messages request would: a budget below 1,024, or not below a max_tokens the client gave', async () => {
      await refused('/v1/messages/count_tokens', { model: 'svc-vision', messages, thinking: { type: 'enabled', budget_tokens: 1000 } }, 'thinking.budget_tokens: must be >= 1024');
      await refused('/v1/messages/count_tokens', { model: 'svc-vision', max_tokens: 2048, messages, thinking: { type: 'enabled', budget_tokens: 2048 } }, 'thinking.budget_tokens: must be less than max_tokens');
    });
  });
});
