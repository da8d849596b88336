import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type Anthropic from '@anthropic-ai/sdk';
import type OpenAI from 'openai';
import { startWithSdks, type Gateway } from './helpers/gateway.ts';

/**
 * Findings of the session 28 audit of the chat protocols, as a new user of the official `openai`
 * and `@anthropic-ai/sdk` clients (docs/api-decisions.md, "Inference: session 28 audit").
 */
describe('inference API, session 28 audit', () => {
  let g: Gateway;
  let openai: OpenAI;
  let anthropic: Anthropic;

  before(async () => void ({ g, openai, anthropic } = await startWithSdks()));
  after(() => g.close());

  const hi = [{ role: 'user' as const, content: 'hi' }];
  const tools = [{ type: 'function' as const, function: { name: 'lookup', parameters: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] } } }];

  describe('a stop sequence the service cuts (Anthropic upstream) matches within text written without other content between', () => {
    // Text, a tool call, more text: "\n" ends the first block and starts the second, so the
    // answer's joined text holds "\n\n" across the call; the second block holds its own "\n\n".
    const scenario = () => ({
      text: 'Let me look that up.\n',
      toolCalls: [{ name: 'lookup', arguments: { q: 'x' } }],
      textAfterToolCalls: '\nThe answer is 42.\n\nDone.',
    });
    const expected = { content: 'Let me look that up.\n\nThe answer is 42.', calls: ['lookup'], finish: 'stop' };

    it('not streamed: cut at the match inside the second block; the call before it is kept', async () => {
      g.anthropic.chat.enqueue(scenario());
      const r = await openai.chat.completions.create({ model: 'svc-vision', messages: hi, tools, stop: '\n\n' });
      const choice = r.choices[0]!;
      assert.deepEqual(
        { content: choice.message.content, calls: (choice.message.tool_calls ?? []).map((c) => c.type === 'function' && c.function.name), finish: choice.finish_reason },
        expected,
      );
    });

    it('streamed (chat.completions.stream): the same answer', async () => {
      g.anthropic.chat.enqueue(scenario());
      const final = await openai.chat.completions.stream({ model: 'svc-vision', messages: hi, tools, stop: '\n\n' }).finalChatCompletion();
      const choice = final.choices[0]!;
      assert.deepEqual(
        { content: choice.message.content, calls: (choice.message.tool_calls ?? []).map((c) => c.type === 'function' && c.function.name), finish: choice.finish_reason },
        expected,
      );
    });

    it('streamed, the upstream answering whole (it ignored stream: true): the same answer', async () => {
      g.anthropic.chat.enqueue({ ...scenario(), ignoreStream: true });
      const final = await openai.chat.completions.stream({ model: 'svc-vision', messages: hi, tools, stop: '\n\n' }).finalChatCompletion();
      const choice = final.choices[0]!;
      assert.deepEqual(
        { content: choice.message.content, calls: (choice.message.tool_calls ?? []).map((c) => c.type === 'function' && c.function.name), finish: choice.finish_reason },
        expected,
      );
    });

    it('a match in the first block ends the answer before the call, streamed and not', async () => {
      const first = { text: 'Line one\nline two', toolCalls: [{ name: 'lookup', arguments: { q: 'x' } }], textAfterToolCalls: 'after' };
      g.anthropic.chat.enqueue(first);
      const whole = await openai.chat.completions.create({ model: 'svc-vision', messages: hi, tools, stop: '\n' });
      g.anthropic.chat.enqueue(first);
      const streamed = await openai.chat.completions.stream({ model: 'svc-vision', messages: hi, tools, stop: '\n' }).finalChatCompletion();
      for (const r of [whole, streamed]) {
        assert.equal(r.choices[0]!.message.content, 'Line one');
        assert.equal(r.choices[0]!.finish_reason, 'stop');
        assert.deepEqual(r.choices[0]!.message.tool_calls ?? [], []);
      }
    });
  });

  describe('SDK helpers', () => {
    it('openai chat.completions.parse with a JSON schema (no zod), on both upstream kinds', async () => {
      const response_format = {
        type: 'json_schema' as const,
        json_schema: { name: 'answer', strict: true, schema: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'], additionalProperties: false } },
      };
      for (const [model, fake] of [['svc-fast', g.openai], ['svc-vision', g.anthropic]] as const) {
        fake.chat.enqueue({ json: { n: 7 } });
        const r = await openai.chat.completions.parse({ model, messages: hi, response_format });
        assert.deepEqual(r.choices[0]!.message.parsed, { n: 7 }, model);
      }
    });

    it('openai chat.completions.runTools: the call, its result sent back, the final answer, on both upstream kinds', async () => {
      for (const [model, fake] of [['svc-fast', g.openai], ['svc-vision', g.anthropic]] as const) {
        fake.chat.enqueue({ toolCalls: [{ name: 'lookup', arguments: { q: 'x' } }] });
        fake.chat.enqueue({ text: 'It is 42.' });
        const lookup = (a: { q: string }) => `result for ${a.q}`;
        const run = openai.chat.completions.runTools({
          model,
          messages: hi,
          tools: [{ type: 'function', function: { name: 'lookup', description: 'Looks a term up.', function: lookup, parse: JSON.parse, parameters: { type: 'object', properties: { q: { type: 'string' } } } } }],
        });
        assert.equal(await run.finalContent(), 'It is 42.', model);
        assert.deepEqual(run.messages.map((m) => m.role), ['user', 'assistant', 'tool', 'assistant'], model);
      }
    });

    it('anthropic messages.stream().finalMessage() with a stop sequence the upstream takes', async () => {
      g.anthropic.chat.enqueue({ text: 'alpha END beta' });
      const m = await anthropic.messages.stream({ model: 'svc-vision', max_tokens: 100, messages: hi, stop_sequences: ['END'] }).finalMessage();
      assert.deepEqual(m.content.map((b) => b.type === 'text' && b.text), ['alpha ']);
      assert.equal(m.stop_reason, 'stop_sequence');
      assert.equal(m.stop_sequence, 'END');
    });

    it('anthropic messages.countTokens answers input_tokens', async () => {
      const r = await anthropic.messages.countTokens({ model: 'svc-vision', messages: hi });
      assert.equal(typeof r.input_tokens, 'number');
      assert.ok(r.input_tokens > 0);
    });
  });
});
