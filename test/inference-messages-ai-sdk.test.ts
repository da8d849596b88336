import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createAnthropic } from '@ai-sdk/anthropic';
import { generateText, jsonSchema, streamText, tool } from 'ai';
import { startGateway, type Gateway } from './helpers/gateway.ts';
import { createTestAccount, type TestAccount } from './helpers/inference.ts';

/** The Vercel AI SDK's Anthropic provider, unmodified, with the service's /inference base. */
describe('the Vercel AI SDK Anthropic provider against /inference', () => {
  let g: Gateway;
  let acct: TestAccount;
  let provider: ReturnType<typeof createAnthropic>;
  before(async () => {
    g = await startGateway();
    acct = await createTestAccount(g.t, { credits: 1_000 });
    provider = createAnthropic({ apiKey: acct.key, baseURL: `${g.t.url}/inference/v1` });
  });
  after(() => g.close());

  for (const model of ['svc-fast', 'svc-vision']) {
    it(`${model}: text`, async () => {
      g.openai.chat.enqueue({ text: 'Hello from svc.', usage: { input: 10, cached: 0, output: 4 } });
      g.anthropic.chat.enqueue({ text: 'Hello from svc.', usage: { input: 10, cached: 0, output: 4 } });
      const r = await generateText({ model: provider(model), prompt: 'Say hello', maxRetries: 0 });
      assert.equal(r.text, 'Hello from svc.');
      assert.equal(r.finishReason, 'stop');
      assert.equal(r.usage.inputTokens, 10);
      assert.equal(r.usage.outputTokens, 4);
    });

    it(`${model}: stream`, async () => {
      g.openai.chat.enqueue({ text: 'Streaming through the AI SDK.' });
      g.anthropic.chat.enqueue({ text: 'Streaming through the AI SDK.' });
      const r = streamText({ model: provider(model), prompt: 'Stream', maxRetries: 0 });
      let text = '';
      for await (const t of r.textStream) text += t;
      assert.equal(text, 'Streaming through the AI SDK.');
      assert.equal(await r.finishReason, 'stop');
    });

    it(`${model}: tool call`, async () => {
      const calls = [{ name: 'get_weather', arguments: { city: 'Paris' } }];
      g.openai.chat.enqueue({ toolCalls: calls });
      g.anthropic.chat.enqueue({ toolCalls: calls });
      const r = await generateText({
        model: provider(model),
        prompt: 'Weather in Paris?',
        maxRetries: 0,
        tools: {
          get_weather: tool({
            description: 'Weather for a city',
            inputSchema: jsonSchema<{ city: string }>({ type: 'object', properties: { city: { type: 'string' } }, required: ['city'] }),
          }),
        },
      });
      assert.equal(r.finishReason, 'tool-calls');
      assert.deepEqual(
        r.toolCalls.map((c) => [c.toolName, c.input]),
        [['get_weather', { city: 'Paris' }]],
      );
    });
  }
});
