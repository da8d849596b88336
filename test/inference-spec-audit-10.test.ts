import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { postJson, startWithSdks, type Gateway } from './helpers/gateway.ts';
import type { TestAccount } from './helpers/inference.ts';

/**
 * Findings of a tenth audit of the inference API, tried as a new user would with the official
 * `openai` and `@anthropic-ai/sdk` clients and plain HTTP (docs/api-decisions.md, "Inference:
 * tenth audit").
 */
describe('inference API, tenth audit', () => {
  let g: Gateway;
  let acct: TestAccount;
  let openai: OpenAI;
  let anthropic: Anthropic;

  before(async () => void ({ g, acct, openai, anthropic } = await startWithSdks()));
  after(() => g.close());

  const upstreamCalls = () => g.openai.requests.length + g.anthropic.requests.length;

  describe('retrieving a stored response as a stream (GET /v1/responses/:id?stream=true)', () => {
    const NOT_STREAMED = 'stream: a stored response cannot be retrieved as a stream; only background responses stream on retrieval, and background is not supported';

    it('is a 400 naming stream, not a JSON body that the SDK reads as a stream of no events', async () => {
      const r = await openai.responses.create({ model: 'svc-fast', input: 'hi' });
      await assert.rejects(
        (async () => {
          const s = await openai.responses.retrieve(r.id, { stream: true });
          for await (const _ of s) void _;
        })(),
        (e: unknown) => e instanceof OpenAI.BadRequestError && e.error === NOT_STREAMED,
      );
      // The SDK's resume helper calls the same.
      await assert.rejects(openai.responses.stream({ response_id: r.id }).finalResponse(), (e: unknown) => e instanceof OpenAI.BadRequestError);
    });

    it('stream=false, or no stream, still answers the stored response; an unknown id is still 404 first', async () => {
      const r = await openai.responses.create({ model: 'svc-fast', input: 'hi' });
      assert.equal((await openai.responses.retrieve(r.id, { stream: false })).id, r.id);
      const res = await fetch(`${g.t.url}/v1/responses/resp_unknown?stream=true`, { headers: { authorization: `Bearer ${acct.key}` } });
      assert.deepEqual([res.status, await res.json()], [404, { error: 'response not found' }]);
    });

    it('a value that is not a boolean is named', async () => {
      const r = await openai.responses.create({ model: 'svc-fast', input: 'hi' });
      const res = await fetch(`${g.t.url}/v1/responses/${r.id}?stream=yes`, { headers: { authorization: `Bearer ${acct.key}` } });
      assert.deepEqual([res.status, await res.json()], [400, { error: 'stream: must be a boolean' }]);
    });
  });

  describe('a function call output must answer a function call of the conversation (/v1/responses)', () => {
    const tools = [{ type: 'function' as const, name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } }, strict: false }];

    it('an output whose call_id no function call has is a 400 in OpenAI\'s words, before any upstream call', async () => {
      for (const model of ['svc-fast', 'svc-vision']) {
        const before = upstreamCalls();
        const res = await postJson(g, acct.key, '/v1/responses', {
          model,
          tools,
          input: [{ role: 'user', content: 'weather?' }, { type: 'function_call_output', call_id: 'call_unknown', output: '20C' }],
        });
        assert.deepEqual([res.status, await res.json()], [400, { error: 'input[1].call_id: no tool call found for function call output with call_id call_unknown' }], model);
        assert.equal(upstreamCalls(), before, model);
      }
    });

    it('the call may come earlier in the input, or from the stored conversation of previous_response_id', async () => {
      const stateless = await openai.responses.create({
        model: 'svc-vision',
        store: false,
        tools,
        input: [
          { role: 'user', content: 'weather?' },
          { type: 'function_call', call_id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' },
          { type: 'function_call_output', call_id: 'call_1', output: '20C' },
        ],
      });
      assert.equal(stateless.status, 'completed');

      g.openai.chat.enqueue({ toolCalls: [{ name: 'get_weather', arguments: { city: 'Rome' } }] });
      const first = await openai.responses.create({ model: 'svc-fast', tools, input: 'weather in Rome?' });
      const call = first.output.find((o) => o.type === 'function_call')!;
      const next = await openai.responses.create({ model: 'svc-fast', tools, previous_response_id: first.id, input: [{ type: 'function_call_output', call_id: call.call_id, output: '22C' }] });
      assert.equal(next.status, 'completed');
      // An output for another call of a stored conversation is still refused.
      await assert.rejects(
        openai.responses.create({ model: 'svc-fast', tools, previous_response_id: first.id, input: [{ type: 'function_call_output', call_id: 'call_other', output: '1' }] }),
        (e: unknown) => e instanceof OpenAI.BadRequestError && e.error === 'input[0].call_id: no tool call found for function call output with call_id call_other',
      );
    });
  });

  describe('a tool_result must answer a tool_use of the assistant turn before it (/v1/messages)', () => {
    const tools = [{ name: 'get_weather', input_schema: { type: 'object' as const, properties: { city: { type: 'string' } } } }];
    const ORPHAN = 'messages[2].content[0].tool_use_id: unexpected tool_use_id found in tool_result blocks: toolu_other. Each tool_result block must have a corresponding tool_use block in the previous message';

    it('a result for a call the previous turn did not make is a 400 in Anthropic\'s words, before any upstream call, whatever upstream serves the model', async () => {
      for (const model of ['svc-fast', 'svc-vision']) {
        const before = upstreamCalls();
        await assert.rejects(
          anthropic.messages.create({
            model,
            max_tokens: 50,
            tools,
            messages: [
              { role: 'user', content: 'weather?' },
              { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Paris' } }] },
              { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_other', content: '20C' }] },
            ],
          }),
          (e: unknown) => (e as { status?: number }).status === 400 && JSON.stringify((e as { error?: unknown }).error) === JSON.stringify({ error: ORPHAN }),
          model,
        );
        assert.equal(upstreamCalls(), before, model);
      }
    });

    it('a result with no assistant turn before it is refused too; count_tokens reads the body the same way', async () => {
      const lone = [{ role: 'user' as const, content: [{ type: 'tool_result' as const, tool_use_id: 'toolu_x', content: 'r' }] }];
      const res = await postJson(g, acct.key, '/inference/v1/messages', { model: 'svc-vision', max_tokens: 10, tools, messages: lone });
      assert.deepEqual([res.status, await res.json()], [400, { error: 'messages[0].content[0].tool_use_id: unexpected tool_use_id found in tool_result blocks: toolu_x. Each tool_result block must have a corresponding tool_use block in the previous message' }]);
      const count = await postJson(g, acct.key, '/inference/v1/messages/count_tokens', { model: 'svc-vision', tools, messages: lone });
      assert.equal(count.status, 400);
    });

    it('results of the previous turn\'s calls are served, with text beside them, and after an earlier turn\'s results', async () => {
      const r = await anthropic.messages.create({
        model: 'svc-vision',
        max_tokens: 50,
        tools,
        messages: [
          { role: 'user', content: 'weather?' },
          { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Paris' } }, { type: 'tool_use', id: 'toolu_2', name: 'get_weather', input: { city: 'Rome' } }] },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_2', content: '22C' }, { type: 'tool_result', tool_use_id: 'toolu_1', content: '20C' }, { type: 'text', text: 'and?' }] },
          { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_3', name: 'get_weather', input: { city: 'Oslo' } }] },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_3', content: '2C', is_error: false }] },
        ],
      });
      assert.equal(r.type, 'message');
    });
  });

  describe('a tool message must answer a tool call of the assistant message before it (/v1/chat/completions)', () => {
    const tools = [{ type: 'function' as const, function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } }];
    const call = (id: string) => ({ id, type: 'function' as const, function: { name: 'get_weather', arguments: '{"city":"Paris"}' } });

    it('a tool message without an assistant message of tool calls before it is a 400 in OpenAI\'s words, on every upstream, before any call', async () => {
      for (const model of ['svc-fast', 'svc-vision']) {
        const before = upstreamCalls();
        await assert.rejects(
          openai.chat.completions.create({ model, tools, messages: [{ role: 'user', content: 'weather?' }, { role: 'tool', tool_call_id: 'call_1', content: '20C' }] }),
          (e: unknown) => e instanceof OpenAI.BadRequestError && e.error === 'messages[1].role: messages with role \'tool\' must be a response to a preceding message with \'tool_calls\'',
          model,
        );
        assert.equal(upstreamCalls(), before, model);
      }
    });

    it('a tool_call_id that the assistant message did not call is named', async () => {
      await assert.rejects(
        openai.chat.completions.create({
          model: 'svc-vision',
          tools,
          messages: [{ role: 'user', content: 'weather?' }, { role: 'assistant', content: null, tool_calls: [call('call_1')] }, { role: 'tool', tool_call_id: 'call_1', content: '20C' }, { role: 'tool', tool_call_id: 'call_2', content: '22C' }],
        }),
        (e: unknown) => e instanceof OpenAI.BadRequestError && e.error === 'messages[3].tool_call_id: \'call_2\' not found in \'tool_calls\' of previous message',
      );
    });

    it('the results of the calls before them are served, also after a system message between', async () => {
      const r = await openai.chat.completions.create({
        model: 'svc-vision',
        tools,
        messages: [
          { role: 'user', content: 'weather?' },
          { role: 'assistant', content: null, tool_calls: [call('call_1'), call('call_2')] },
          { role: 'tool', tool_call_id: 'call_2', content: '22C' },
          { role: 'system', content: 'answer briefly' },
          { role: 'tool', tool_call_id: 'call_1', content: '20C' },
        ],
      });
      assert.equal(r.object, 'chat.completion');
    });
  });

  describe('counting a responses request\'s input tokens (POST /v1/responses/input_tokens, the SDK\'s responses.inputTokens.count)', () => {
    it('answers OpenAI\'s object with the count of the messages route\'s count_tokens for the same conversation; no upstream call, nothing billed', async () => {
      const before = upstreamCalls();
      const r = await openai.responses.inputTokens.count({ model: 'svc-fast', instructions: 'be brief', input: 'What is the capital of France?' });
      assert.equal(r.object, 'response.input_tokens');
      const same = await anthropic.messages.countTokens({ model: 'svc-fast', system: 'be brief', messages: [{ role: 'user', content: 'What is the capital of France?' }] });
      assert.equal(r.input_tokens, same.input_tokens);
      assert.equal(upstreamCalls(), before);
    });

    it('counts the stored conversation of previous_response_id and the tools', async () => {
      const first = await openai.responses.create({ model: 'svc-fast', input: 'Tell me a long story about a lighthouse keeper.' });
      const alone = await openai.responses.inputTokens.count({ model: 'svc-fast', input: 'And then?' });
      const chained = await openai.responses.inputTokens.count({ model: 'svc-fast', input: 'And then?', previous_response_id: first.id });
      assert.ok(chained.input_tokens > alone.input_tokens, `${chained.input_tokens} > ${alone.input_tokens}`);
      const withTools = await openai.responses.inputTokens.count({
        model: 'svc-fast',
        input: 'And then?',
        tools: [{ type: 'function', name: 'get_weather', description: 'The weather of a city', parameters: { type: 'object', properties: { city: { type: 'string' } } }, strict: false }],
      });
      assert.ok(withTools.input_tokens > alone.input_tokens, `${withTools.input_tokens} > ${alone.input_tokens}`);
    });

    it('refuses what creating the response would refuse: an unknown previous_response_id, an unknown model, a model of another endpoint', async () => {
      await assert.rejects(openai.responses.inputTokens.count({ model: 'svc-fast', input: 'x', previous_response_id: 'resp_unknown' }), (e: unknown) => e instanceof OpenAI.NotFoundError && e.error === 'response not found');
      await assert.rejects(openai.responses.inputTokens.count({ model: 'gpt-4o', input: 'x' }), (e: unknown) => e instanceof OpenAI.NotFoundError && e.error === 'model not found: gpt-4o');
      await assert.rejects(openai.responses.inputTokens.count({ model: 'svc-embed', input: 'x' }), (e: unknown) => e instanceof OpenAI.BadRequestError);
      const res = await fetch(`${g.t.url}/v1/responses/input_tokens`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: 'svc-fast', input: 'x' }) });
      assert.deepEqual([res.status, await res.json()], [401, { error: 'unauthorized' }]);
    });
  });
});
