import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type Anthropic from '@anthropic-ai/sdk';
import type OpenAI from 'openai';
import { charged } from './helpers/books.ts';
import { expectedCost, PRICES, startWithSdks, type Gateway } from './helpers/gateway.ts';
import type { TestAccount } from './helpers/inference.ts';

/**
 * An upstream that ignores `stream: true` and answers one JSON body (`application/json`): the
 * client that asked for a stream still gets one, in its own protocol, billed from the JSON's usage
 * (docs/api-decisions.md, "Inference: ninth audit").
 */
describe('a streamed request answered by the upstream with one JSON body', () => {
  let g: Gateway;
  let acct: TestAccount;
  let openai: OpenAI;
  let anthropic: Anthropic;

  before(async () => void ({ g, acct, openai, anthropic } = await startWithSdks()));
  after(() => g.close());

  const KINDS = [
    { name: 'an OpenAI-compatible upstream', model: 'svc-fast', fake: (g: Gateway) => g.openai },
    { name: 'an Anthropic upstream', model: 'svc-vision', fake: (g: Gateway) => g.anthropic },
  ] as const;
  const usage = { input: 1234, cached: 800, output: 57 };
  const weather: OpenAI.ChatCompletionTool[] = [
    { type: 'function', function: { name: 'get_weather', description: 'Weather in a city', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } } },
  ];

  for (const kind of KINDS) {
    describe(kind.name, () => {
      const price = PRICES[kind.model];

      it('chat completions: text chunks, the finish reason, the usage chunk and [DONE]; billed from the JSON usage', async () => {
        kind.fake(g).chat.enqueue({ ignoreStream: true, text: 'One JSON answer, streamed to you.', usage });
        let text = '';
        let finish: string | null = null;
        let reported: OpenAI.CompletionUsage | null | undefined = null;
        const { charge, row } = await charged(g, acct, async () => {
          const stream = await openai.chat.completions.create({ model: kind.model, messages: [{ role: 'user', content: 'hi' }], stream: true, stream_options: { include_usage: true } });
          for await (const c of stream) {
            text += c.choices[0]?.delta.content ?? '';
            finish = c.choices[0]?.finish_reason ?? finish;
            if (c.usage) reported = c.usage;
          }
        });
        assert.equal(text, 'One JSON answer, streamed to you.');
        assert.equal(finish, 'stop');
        assert.equal(reported!.prompt_tokens, 1234);
        assert.equal(reported!.completion_tokens, 57);
        assert.equal(reported!.prompt_tokens_details?.cached_tokens, 800);
        assert.equal(charge, expectedCost(price, usage));
        assert.deepEqual([row.status, row.usage_source, row.input_tokens, row.cached_input_tokens, row.output_tokens], [200, 'upstream', 1234, 800, 57]);
      });

      it('chat completions: tool calls stream with their whole arguments', async () => {
        kind.fake(g).chat.enqueue({ ignoreStream: true, text: 'Checking.', toolCalls: [{ name: 'get_weather', arguments: { city: 'Paris' } }], usage });
        const stream = openai.chat.completions.stream({ model: kind.model, messages: [{ role: 'user', content: 'Weather in Paris?' }], tools: weather });
        const done = await stream.finalChatCompletion();
        const choice = done.choices[0]!;
        assert.equal(choice.finish_reason, 'tool_calls');
        assert.equal(choice.message.tool_calls?.length, 1);
        const call = choice.message.tool_calls![0]! as OpenAI.ChatCompletionMessageFunctionToolCall;
        assert.equal(call.function.name, 'get_weather');
        assert.deepEqual(JSON.parse(call.function.arguments), { city: 'Paris' });
        assert.match(call.id, /^call_/);
      });

      it('messages: the Anthropic event sequence, finalMessage with the text and the usage; billed exactly', async () => {
        kind.fake(g).chat.enqueue({ ignoreStream: true, text: 'Streamed from JSON.', usage });
        let message: Anthropic.Message | null = null;
        const events: string[] = [];
        const { charge } = await charged(g, acct, async () => {
          const stream = anthropic.messages.stream({ model: kind.model, max_tokens: 200, messages: [{ role: 'user', content: 'hi' }] });
          for await (const e of stream) events.push(e.type);
          message = await stream.finalMessage();
        });
        assert.equal(events[0], 'message_start');
        assert.equal(events.at(-1), 'message_stop');
        assert.ok(events.includes('content_block_delta'), events.join(','));
        assert.deepEqual(
          message!.content.map((b) => [b.type, b.type === 'text' ? b.text : null]),
          [['text', 'Streamed from JSON.']],
        );
        assert.equal(message!.stop_reason, 'end_turn');
        assert.deepEqual(message!.usage, { input_tokens: 434, cache_creation_input_tokens: 0, cache_read_input_tokens: 800, cache_creation: null, output_tokens: 57, service_tier: 'standard' });
        assert.equal(charge, expectedCost(price, usage));
      });

      it('responses: the Responses events and a stored response; billed exactly', async () => {
        kind.fake(g).chat.enqueue({ ignoreStream: true, text: 'A stored answer.', usage });
        let done: OpenAI.Responses.Response | null = null;
        const { charge } = await charged(g, acct, async () => {
          const stream = openai.responses.stream({ model: kind.model, input: 'hi' });
          done = await stream.finalResponse();
        });
        assert.equal(done!.status, 'completed');
        // finalResponse() does not compute output_text; the message item holds the text.
        const message = done!.output.find((i) => i.type === 'message')!;
        assert.deepEqual(message.content.map((c) => (c.type === 'output_text' ? c.text : null)), ['A stored answer.']);
        assert.equal(done!.usage?.input_tokens, 1234);
        assert.equal(done!.usage?.input_tokens_details.cached_tokens, 800);
        assert.equal(done!.usage?.output_tokens, 57);
        assert.equal(charge, expectedCost(price, usage));
        assert.equal((await openai.responses.retrieve(done!.id)).output_text, 'A stored answer.');
      });
    });
  }

  it('completions: the text continuation streams, billed exactly (OpenAI-compatible upstream)', async () => {
    g.openai.chat.enqueue({ ignoreStream: true, text: ' upon a time.', usage });
    let text = '';
    const { charge } = await charged(g, acct, async () => {
      for await (const c of await openai.completions.create({ model: 'svc-fast', prompt: 'Once', stream: true })) text += c.choices[0]?.text ?? '';
    });
    assert.equal(text, ' upon a time.');
    assert.equal(charge, expectedCost(PRICES['svc-fast'], usage));
  });

  it('an Anthropic JSON answer with thinking, redacted thinking and a tool call streams every block, signature included', async () => {
    g.anthropic.chat.enqueue({
      ignoreStream: true,
      reasoning: 'The user wants the weather.',
      redactedThinking: 'c2VjcmV0',
      toolCalls: [{ name: 'get_weather', arguments: { city: 'Oslo' } }],
      usage,
    });
    const stream = anthropic.messages.stream({
      model: 'svc-vision',
      max_tokens: 4000,
      thinking: { type: 'enabled', budget_tokens: 2000 },
      tools: [{ name: 'get_weather', description: 'Weather in a city', input_schema: { type: 'object', properties: { city: { type: 'string' } } } }],
      messages: [{ role: 'user', content: 'Weather in Oslo?' }],
    });
    const m = await stream.finalMessage();
    assert.deepEqual(
      m.content.map((b) => b.type),
      ['thinking', 'redacted_thinking', 'tool_use'],
    );
    const [thinking, redacted, call] = m.content as [Anthropic.ThinkingBlock, Anthropic.RedactedThinkingBlock, Anthropic.ToolUseBlock];
    assert.equal(thinking.thinking, 'The user wants the weather.');
    assert.ok(thinking.signature.length > 0, 'the signature, sealed or not, is there to send back');
    assert.ok(redacted.data.length > 0);
    assert.equal(call.name, 'get_weather');
    assert.deepEqual(call.input, { city: 'Oslo' });
    assert.equal(m.stop_reason, 'tool_use');
  });

  it('a JSON answer without usage is billed from the tokenizer\'s estimate, as a stream without usage', async () => {
    g.openai.chat.enqueue({ ignoreStream: true, text: 'No usage here at all.', omitUsage: true });
    const { charge, row } = await charged(g, acct, async () => {
      for await (const _c of await openai.chat.completions.create({ model: 'svc-fast', messages: [{ role: 'user', content: 'hi' }], stream: true })) {
        // read to the end
      }
    });
    assert.equal(row.usage_source, 'estimated');
    assert.ok(row.output_tokens > 0);
    assert.equal(charge, expectedCost(PRICES['svc-fast'], { input: row.input_tokens, output: row.output_tokens }));
  });

  it('an event stream sent as application/json (a server with the wrong content type) is still read as a stream, on both upstream kinds', async () => {
    for (const kind of KINDS) {
      kind.fake(g).chat.enqueue({ streamContentType: 'application/json', text: 'Mislabelled but streamed.', usage });
      let text = '';
      const { charge } = await charged(g, acct, async () => {
        for await (const c of await openai.chat.completions.create({ model: kind.model, messages: [{ role: 'user', content: 'hi' }], stream: true })) text += c.choices[0]?.delta.content ?? '';
      });
      assert.equal(text, 'Mislabelled but streamed.', kind.model);
      assert.equal(charge, expectedCost(PRICES[kind.model], usage));
    }
  });

  it('an empty JSON answer streams as an empty completed answer', async () => {
    g.openai.chat.enqueue({ ignoreStream: true, text: '' });
    let text = '';
    let finish: string | null = null;
    for await (const c of await openai.chat.completions.create({ model: 'svc-fast', messages: [{ role: 'user', content: 'hi' }], stream: true })) {
      text += c.choices[0]?.delta.content ?? '';
      finish = c.choices[0]?.finish_reason ?? finish;
    }
    assert.deepEqual([text, finish], ['', 'stop']);
  });
});
