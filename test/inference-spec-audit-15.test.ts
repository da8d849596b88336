import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import OpenAI from 'openai';
import { startWithSdks, type Gateway } from './helpers/gateway.ts';
import type { TestAccount } from './helpers/inference.ts';
import { auditRequests } from './helpers/spec-audit.ts';

/**
 * Findings of a fifteenth audit of the inference API, tried with the official `openai` client and
 * plain HTTP (docs/api-decisions.md, "Inference: fifteenth audit"; the message-thread errors are in
 * test/inference-message-threads.test.ts).
 */
describe('inference API, fifteenth audit', () => {
  let g: Gateway;
  let acct: TestAccount;
  let openai: OpenAI;

  before(async () => void ({ g, acct, openai } = await startWithSdks()));
  after(() => g.close());

  const { refused, upstreamCalls } = auditRequests(() => ({ g, key: acct.key }));

  describe('completions: a prompt is one text', () => {
    it('several prompts or token arrays are a 400 naming prompt, through the SDK and plain HTTP, nothing sent upstream', async () => {
      const before = upstreamCalls();
      await assert.rejects(
        openai.completions.create({ model: 'svc-fast', prompt: ['Once upon', 'In a galaxy'] }),
        (err: unknown) => err instanceof OpenAI.BadRequestError && err.message.includes('prompt: several prompts in one request are not supported'),
      );
      await assert.rejects(
        openai.completions.create({ model: 'svc-fast', prompt: [1, 2, 3] }),
        (err: unknown) => err instanceof OpenAI.BadRequestError && err.message.includes('prompt: token arrays are not supported'),
      );
      assert.equal(upstreamCalls(), before);
      const several = 'prompt: several prompts in one request are not supported; send one request per prompt';
      const tokens = 'prompt: token arrays are not supported; send the prompt as text';
      await refused('/v1/completions', { model: 'svc-fast', prompt: ['a', 'b'] }, several);
      await refused('/v1/completions', { model: 'svc-fast', prompt: [15339, 1917] }, tokens);
      await refused('/v1/completions', { model: 'svc-fast', prompt: [[15339], [1917]] }, tokens);
      await refused('/v1/completions', { model: 'svc-fast', prompt: [] }, 'prompt: must not be empty');
      await refused('/v1/completions', { model: 'svc-fast', prompt: [{ text: 'a' }] }, 'prompt: must be a string');
    });

    it('a list of one prompt is still that prompt', async () => {
      g.openai.chat.enqueue({ text: ' there was a fox.' });
      const c = await openai.completions.create({ model: 'svc-fast', prompt: ['Once upon a time'] });
      assert.equal(c.choices[0]!.text, ' there was a fox.');
      assert.equal(c.choices[0]!.index, 0);
    });
  });
});
