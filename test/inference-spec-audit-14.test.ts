import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type Anthropic from '@anthropic-ai/sdk';
import type OpenAI from 'openai';
import { startWithSdks, type Gateway } from './helpers/gateway.ts';
import { PNG_BASE64 } from './helpers/images.ts';
import type { TestAccount } from './helpers/inference.ts';
import { auditRequests } from './helpers/spec-audit.ts';

/**
 * Findings of a fourteenth audit of the inference API, tried as a new user would with the official
 * `openai` and `@anthropic-ai/sdk` clients and plain HTTP (docs/api-decisions.md, "Inference:
 * fourteenth audit").
 */
describe('inference API, fourteenth audit', () => {
  let g: Gateway;
  let acct: TestAccount;
  let anthropic: Anthropic;
  let openai: OpenAI;

  before(async () => void ({ g, acct, anthropic, openai } = await startWithSdks()));
  after(() => g.close());

  const { post, refused, answered } = auditRequests(() => ({ g, key: acct.key }));

  describe('stop sequences: at most four on every protocol, whatever upstream kind serves the model', () => {
    const five = ['a1', 'b2', 'c3', 'd4', 'e5'];
    const messages = [{ role: 'user', content: 'count' }];

    it('a fifth is a 400 naming the field before any upstream call (messages on both kinds, chat, completions)', async () => {
      for (const model of ['svc-vision', 'svc-fast', 'svc-shiplow']) {
        await refused('/inference/v1/messages', { model, max_tokens: 50, stop_sequences: five, messages }, 'stop_sequences: must have at most 4 items');
        await refused('/v1/messages', { model, max_tokens: 50, stop_sequences: five, messages, stream: true }, 'stop_sequences: must have at most 4 items');
        await refused('/v1/chat/completions', { model, stop: five, messages }, 'stop: must have at most 4 items');
        await refused('/v1/completions', { model, stop: five, prompt: 'count' }, 'stop: must have at most 4 items');
      }
    });

    it('an empty `stop` string (stops nothing) is left out, so an Anthropic upstream, which refuses it, answers', async () => {
      for (const [path, body] of [
        ['/v1/chat/completions', { model: 'svc-vision', messages, stop: ['a1', ''] }],
        ['/v1/completions', { model: 'svc-vision', prompt: 'count', stop: ['a1', ''] }],
      ] as const) {
        await answered(path, body, 'anthropic');
        assert.deepEqual((g.anthropic.requests.at(-1)!.body as { stop_sequences?: unknown }).stop_sequences, ['a1'], path);
        await answered(path, { ...body, stop: '' }, 'anthropic');
        assert.equal((g.anthropic.requests.at(-1)!.body as { stop_sequences?: unknown }).stop_sequences, undefined, path);
      }
    });

    it('four reach either upstream kind as they are', async () => {
      await answered('/inference/v1/messages', { model: 'svc-vision', max_tokens: 50, stop_sequences: five.slice(0, 4), messages }, 'anthropic');
      assert.deepEqual((g.anthropic.requests.at(-1)!.body as { stop_sequences: unknown }).stop_sequences, five.slice(0, 4));
      await answered('/inference/v1/messages', { model: 'svc-fast', max_tokens: 50, stop_sequences: five.slice(0, 4), messages });
      assert.deepEqual((g.openai.requests.at(-1)!.body as { stop: unknown }).stop, five.slice(0, 4));
    });
  });

  describe('citations in an Anthropic upstream\'s answer reach a /v1/messages client', () => {
    const CITATION = {
      type: 'char_location',
      cited_text: 'Revenue rose 5% in Q3.',
      document_index: 0,
      document_title: 'Q3 report',
      start_char_index: 0,
      end_char_index: 22,
    };
    const textBlocks = [{ text: 'According to the report, ' }, { text: 'revenue rose 5%', citations: [CITATION] }, { text: '.' }];
    const ask = {
      model: 'svc-vision',
      max_tokens: 200,
      messages: [
        {
          role: 'user' as const,
          content: [
            { type: 'document' as const, source: { type: 'text' as const, media_type: 'text/plain' as const, data: 'Revenue rose 5% in Q3.' }, title: 'Q3 report', citations: { enabled: true } },
            { type: 'text' as const, text: 'How did revenue do?' },
          ],
        },
      ],
    };
    const expected = [
      { type: 'text', text: 'According to the report, ' },
      { type: 'text', text: 'revenue rose 5%', citations: [CITATION] },
      { type: 'text', text: '.' },
    ];
    /** The text blocks without the `citations: null` the SDK's types allow on uncited ones. */
    const blocks = (m: Anthropic.Message) =>
      m.content.map((b) => {
        const t = b as Anthropic.TextBlock;
        return { type: t.type, text: t.text, ...(t.citations ? { citations: t.citations } : {}) };
      });

    for (const streamed of [false, true]) {
      it(`as the upstream's text blocks, each with its citations, ${streamed ? 'streamed (citations_delta)' : 'not streamed'}; the document's citations setting reaches the upstream`, async () => {
        g.anthropic.chat.enqueue({ textBlocks });
        const m = streamed ? await anthropic.messages.stream(ask).finalMessage() : await anthropic.messages.create(ask);
        assert.deepEqual(blocks(m), expected);
        const sent = g.anthropic.requests.at(-1)!.body as { messages: { content: { type: string; citations?: unknown }[] }[] };
        assert.deepEqual(sent.messages[0]!.content[0]!.citations, { enabled: true });
      });
    }

    it('streams each cited block as content_block_start, citations_delta, text_delta, content_block_stop', async () => {
      g.anthropic.chat.enqueue({ textBlocks });
      const r = await post('/inference/v1/messages', { ...ask, stream: true });
      const text = await r.text();
      assert.equal(r.status, 200, text);
      const events = text
        .split('\n\n')
        .filter((e) => e.startsWith('event: content_block'))
        .map((e) => JSON.parse(e.slice(e.indexOf('data: ') + 6)) as { type: string; index: number; delta?: { type: string } });
      const cited = events.filter((e) => e.index === 1).map((e) => e.delta?.type ?? e.type);
      assert.equal(cited[0], 'content_block_start');
      assert.equal(cited[1], 'citations_delta');
      assert.ok(cited.slice(2, -1).every((t) => t === 'text_delta'));
      assert.equal(cited.at(-1), 'content_block_stop');
    });

    it('a chat completions or responses client gets the whole text', async () => {
      g.anthropic.chat.enqueue({ textBlocks });
      const c = await openai.chat.completions.create({ model: 'svc-vision', messages: [{ role: 'user', content: 'How did revenue do?' }] });
      assert.equal(c.choices[0]!.message.content, 'According to the report, revenue rose 5%.');
      g.anthropic.chat.enqueue({ textBlocks });
      const s = await openai.responses.stream({ model: 'svc-vision', input: 'How did revenue do?' }).finalResponse();
      const message = s.output[0] as OpenAI.Responses.ResponseOutputMessage;
      assert.deepEqual(message.content.map((p) => (p as OpenAI.Responses.ResponseOutputText).text), ['According to the report, revenue rose 5%.']);
    });
  });

  describe('custom_tool_call_output takes OpenAI\'s list of input parts, as function_call_output does', () => {
    const png = `data:image/png;base64,${PNG_BASE64}`;
    const conversation = (model: string, output: unknown) => ({
      model,
      store: false,
      tools: [{ type: 'custom', name: 'screenshot', description: 'Takes a screenshot.' }],
      input: [
        { role: 'user', content: 'What is on the screen?' },
        { type: 'custom_tool_call', call_id: 'call_shot1', name: 'screenshot', input: 'full' },
        { type: 'custom_tool_call_output', call_id: 'call_shot1', output },
      ],
    });
    const parts = [
      { type: 'input_text', text: 'The screen:' },
      { type: 'input_image', image_url: png, detail: 'auto' },
    ];

    it('an image in it reaches an Anthropic upstream inside the tool_result, through the SDK', async () => {
      g.anthropic.chat.enqueue({ text: 'A login form.' });
      const r = await openai.responses.create(conversation('svc-vision', parts) as OpenAI.Responses.ResponseCreateParamsNonStreaming);
      assert.equal(r.output_text, 'A login form.');
      type Block = { type: string; content?: { type: string; text?: string; source?: { type: string; data?: string } }[] };
      const sent = g.anthropic.requests.at(-1)!.body as { messages: { role: string; content: Block[] }[] };
      const result = sent.messages.at(-1)!.content.find((b) => b.type === 'tool_result')!;
      assert.deepEqual(result.content!.map((b) => b.type), ['text', 'image']);
      assert.equal(result.content![1]!.source!.data, PNG_BASE64);
    });

    it('text parts only are the text; an image needs a vision model; an unknown part is a 400 naming it', async () => {
      g.openai.chat.enqueue({ text: 'ok' });
      const r = await post('/v1/responses', conversation('svc-fast', [{ type: 'input_text', text: 'a' }, { type: 'input_text', text: 'b' }]));
      assert.equal(r.status, 200, await r.clone().text());
      const sent = g.openai.requests.at(-1)!.body as { messages: { role: string; content: unknown }[] };
      assert.deepEqual(sent.messages.at(-1), { role: 'tool', tool_call_id: 'call_shot1', content: 'ab' });
      await refused('/v1/responses', conversation('svc-fast', parts), 'input[2]: model svc-fast does not accept images in tool results');
      await refused('/v1/responses', conversation('svc-vision', [{ type: 'input_audio', data: 'x' }]), 'input[2].output[0].type: unsupported content part type "input_audio"; expected input_text, input_image or input_file');
    });
  });

  describe('chat completions: tool_choice allowed_tools, and the deprecated functions', () => {
    const tools: OpenAI.Chat.ChatCompletionTool[] = ['get_time', 'get_weather', 'get_news'].map((name) => ({
      type: 'function' as const,
      function: { name, parameters: { type: 'object', properties: { city: { type: 'string' } } } },
    }));
    const messages: OpenAI.Chat.ChatCompletionMessageParam[] = [{ role: 'user', content: 'Time in Oslo?' }];
    type Sent = { tools?: { name?: string; function?: { name: string } }[]; tool_choice?: unknown };

    for (const [model, kind] of [['svc-fast', 'openai'], ['svc-vision', 'anthropic']] as const) {
      it(`allowed_tools sends only the allowed tools upstream, with its mode as the choice (${kind} upstream)`, async () => {
        g[kind].chat.enqueue({ toolCalls: [{ name: 'get_time', arguments: { city: 'Oslo' } }] });
        const c = await openai.chat.completions.create({
          model,
          messages,
          tools,
          tool_choice: { type: 'allowed_tools', allowed_tools: { mode: 'required', tools: [{ type: 'function', function: { name: 'get_time' } }, { type: 'function', function: { name: 'get_news' } }] } },
        });
        const call = c.choices[0]!.message.tool_calls![0] as OpenAI.Chat.ChatCompletionMessageFunctionToolCall;
        assert.equal(call.function.name, 'get_time');
        const sent = g[kind].requests.at(-1)!.body as Sent;
        assert.deepEqual(sent.tools!.map((t) => t.name ?? t.function!.name), ['get_time', 'get_news']);
        assert.deepEqual(sent.tool_choice, kind === 'openai' ? 'required' : { type: 'any' });
      });
    }

    it('allowed_tools naming a tool not in tools, or without mode, is a 400 naming the field', async () => {
      const choice = (allowed: unknown) => ({ model: 'svc-fast', messages, tools, tool_choice: { type: 'allowed_tools', allowed_tools: allowed } });
      await refused('/v1/chat/completions', choice({ mode: 'auto', tools: [{ type: 'function', function: { name: 'nope' } }] }), 'tool_choice.allowed_tools.tools[0].function.name: no tool named nope in tools');
      await refused('/v1/chat/completions', choice({ tools: [{ type: 'function', function: { name: 'get_time' } }] }), 'tool_choice.allowed_tools.mode: is required');
      await refused('/v1/chat/completions', choice({ mode: 'auto', tools: [] }), 'tool_choice.allowed_tools.tools: must not be empty');
    });

    it('the deprecated functions and function_call are a 400 pointing to tools, not silently ignored', async () => {
      await refused('/v1/chat/completions', { model: 'svc-fast', messages, functions: [{ name: 'f', parameters: { type: 'object' } }] }, 'functions: is deprecated and not supported; use tools');
      await refused('/v1/chat/completions', { model: 'svc-fast', messages, tools, function_call: 'auto' }, 'function_call: is deprecated and not supported; use tool_choice');
    });
  });
});
