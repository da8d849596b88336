import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { zodResponseFormat, zodTextFormat } from 'openai/helpers/zod';
import { z } from 'zod';
import { startWithSdks, type SdkSetup } from './helpers/gateway.ts';

/**
 * The SDKs' own helpers, as a new user reaches for them: the Anthropic SDK's beta namespace
 * (`/v1/messages?beta=true`), structured-output parsing, and the tool-running loops, which make
 * several calls and read every event of each.
 */
describe('the SDKs helpers against the gateway', () => {
  let s: SdkSetup;
  before(async () => {
    s = await startWithSdks();
  });
  after(() => s.g.close());

  it('anthropic beta.messages.create and countTokens', async () => {
    s.g.openai.chat.enqueue({ text: 'Hi from beta.' });
    const m = await s.anthropic.beta.messages.create({ model: 'svc-fast', max_tokens: 100, messages: [{ role: 'user', content: 'hello' }] });
    assert.equal(m.model, 'svc-fast');
    assert.deepEqual(m.content.map((b) => b.type), ['text']);
    const c = await s.anthropic.beta.messages.countTokens({ model: 'svc-fast', messages: [{ role: 'user', content: 'hello' }] });
    assert.ok(c.input_tokens > 0);
  });

  it('anthropic beta.messages.stream', async () => {
    s.g.openai.chat.enqueue({ text: 'Streamed from beta.' });
    const stream = s.anthropic.beta.messages.stream({ model: 'svc-fast', max_tokens: 100, messages: [{ role: 'user', content: 'hello' }] });
    const final = await stream.finalMessage();
    assert.equal(final.content[0]?.type === 'text' && final.content[0].text, 'Streamed from beta.');
  });

  it('openai chat.completions.parse with a zod schema', async () => {
    s.g.openai.chat.enqueue({ json: { city: 'Paris', degrees: 21 } });
    const Weather = z.object({ city: z.string(), degrees: z.number() });
    const r = await s.openai.chat.completions.parse({ model: 'svc-fast', messages: [{ role: 'user', content: 'weather' }], response_format: zodResponseFormat(Weather, 'weather') });
    assert.deepEqual(r.choices[0]!.message.parsed, { city: 'Paris', degrees: 21 });
  });

  it('openai responses.parse with a zod text format', async () => {
    s.g.openai.chat.enqueue({ json: { city: 'Oslo', degrees: -3 } });
    const Weather = z.object({ city: z.string(), degrees: z.number() });
    const r = await s.openai.responses.parse({ model: 'svc-fast', input: 'weather', text: { format: zodTextFormat(Weather, 'weather') } });
    assert.deepEqual(r.output_parsed, { city: 'Oslo', degrees: -3 });
  });

  it('openai chat.completions.runTools calls the tool and answers with its result', async () => {
    s.g.openai.chat.enqueue({ toolCalls: [{ name: 'get_weather', arguments: { city: 'Paris' } }] }, { text: 'It is sunny in Paris.' });
    const seen: unknown[] = [];
    const runner = s.openai.chat.completions.runTools({
      model: 'svc-fast',
      messages: [{ role: 'user', content: 'weather in Paris?' }],
      tools: [
        {
          type: 'function',
          function: {
            name: 'get_weather',
            description: 'weather',
            parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
            function: (args: { city: string }) => {
              seen.push(args);
              return 'sunny';
            },
            parse: JSON.parse,
          },
        },
      ],
    });
    assert.equal(await runner.finalContent(), 'It is sunny in Paris.');
    assert.deepEqual(seen, [{ city: 'Paris' }]);
  });

  it('anthropic beta.messages.toolRunner calls the tool and answers with its result', async () => {
    s.g.openai.chat.enqueue({ toolCalls: [{ name: 'get_weather', arguments: { city: 'Rome' } }] }, { text: 'Rome is warm.' });
    const seen: unknown[] = [];
    const runner = s.anthropic.beta.messages.toolRunner({
      model: 'svc-fast',
      max_tokens: 200,
      messages: [{ role: 'user', content: 'weather in Rome?' }],
      tools: [
        {
          name: 'get_weather',
          description: 'weather',
          input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
          run: (input: unknown) => {
            seen.push(input);
            return 'warm';
          },
        },
      ],
    });
    const final = await runner.runUntilDone();
    assert.equal(final.content[0]?.type === 'text' && final.content[0].text, 'Rome is warm.');
    assert.deepEqual(seen, [{ city: 'Rome' }]);
  });
});
