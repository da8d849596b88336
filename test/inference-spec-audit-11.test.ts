import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { charged } from './helpers/books.ts';
import { startWithSdks, type Gateway } from './helpers/gateway.ts';
import type { TestAccount } from './helpers/inference.ts';

/**
 * Findings of an eleventh audit of the inference API, tried as a new user would with the official
 * `openai` and `@anthropic-ai/sdk` clients and plain HTTP (docs/api-decisions.md, "Inference:
 * eleventh audit").
 */
describe('inference API, eleventh audit', () => {
  let g: Gateway;
  let acct: TestAccount;
  let openai: OpenAI;
  let anthropic: Anthropic;

  before(async () => void ({ g, acct, openai, anthropic } = await startWithSdks()));
  after(() => g.close());

  const hi = [{ role: 'user' as const, content: 'hi' }];
  const upstreamCalls = () => g.openai.requests.length + g.anthropic.requests.length;

  describe('Anthropic\'s out-of-credits 400 (the service\'s own upstream account, not the client\'s request)', () => {
    // What Anthropic answers an organisation whose prepaid credits ran out: a 400, not its 402 billing_error.
    const creditLow = {
      status: 400,
      type: 'invalid_request_error',
      message: 'Your credit balance is too low to access the Anthropic API. Please go to Plans & Billing to upgrade or purchase credits.',
    };
    const BILLING = 'the upstream refused the service\'s account (billing); try again later';

    it('is the 502 of OpenAI\'s insufficient_quota on /v1/messages, with x-should-retry: false, unbilled', async () => {
      for (const stream of [false, true]) {
        g.anthropic.chat.enqueue({ error: creditLow });
        // An SDK left at its default retries: x-should-retry: false makes it send the request once.
        const retrying = new Anthropic({ apiKey: acct.key, baseURL: `${g.t.url}/inference` });
        const before = g.anthropic.requests.length;
        const { charge, row } = await charged(g, acct, () =>
          assert.rejects(
            (async () => {
              if (!stream) return retrying.messages.create({ model: 'svc-vision', max_tokens: 50, messages: hi });
              return retrying.messages.stream({ model: 'svc-vision', max_tokens: 50, messages: hi }).finalMessage();
            })(),
            (e: unknown) => {
              assert.ok(e instanceof Anthropic.APIError, String(e));
              assert.equal(e.status, 502);
              assert.deepEqual(e.error, { error: BILLING });
              assert.equal(e.headers?.get('x-should-retry'), 'false');
              return true;
            },
          ),
        );
        assert.deepEqual([charge, row.status, row.usage_source], [0n, 502, null], `stream ${stream}`);
        assert.equal(g.anthropic.requests.length, before + 1, `stream ${stream}`);
      }
    });

    it('is the same 502 on /v1/chat/completions of a model served by Anthropic', async () => {
      for (const stream of [false, true]) {
        g.anthropic.chat.enqueue({ error: creditLow });
        await assert.rejects(
          (async () => {
            if (!stream) return openai.chat.completions.create({ model: 'svc-vision', messages: hi });
            for await (const _ of await openai.chat.completions.create({ model: 'svc-vision', messages: hi, stream: true })) void _;
          })(),
          (e: unknown) => {
            assert.ok(e instanceof OpenAI.APIError, String(e));
            assert.equal(e.status, 502);
            assert.equal(e.error, BILLING);
            assert.equal(e.headers.get('x-should-retry'), 'false');
            return true;
          },
        );
      }
    });

    it('falls back to the model\'s next deployment (svc-pro: Anthropic, then OpenAI), on both protocols', async () => {
      g.anthropic.chat.enqueue({ error: creditLow });
      g.openai.chat.enqueue({ text: 'served by the fallback' });
      const chat = await openai.chat.completions.create({ model: 'svc-pro', messages: hi });
      assert.equal(chat.choices[0]!.message.content, 'served by the fallback');

      g.anthropic.chat.enqueue({ error: creditLow });
      g.openai.chat.enqueue({ text: 'served by the fallback' });
      const msg = await anthropic.messages.create({ model: 'svc-pro', max_tokens: 50, messages: hi });
      assert.deepEqual(msg.content, [{ type: 'text', text: 'served by the fallback', citations: null }].map(({ type, text }) => ({ type, text })));
    });

    it('another invalid_request_error stays the client\'s 400', async () => {
      const before = upstreamCalls();
      g.anthropic.chat.enqueue({ error: { status: 400, type: 'invalid_request_error', message: 'messages: text content blocks must be non-empty' } });
      await assert.rejects(anthropic.messages.create({ model: 'svc-pro', max_tokens: 50, messages: hi }), (e: unknown) => e instanceof Anthropic.BadRequestError);
      // No fallback for the request's own fault.
      assert.equal(upstreamCalls(), before + 1);
    });
  });

  describe('a tool call without its result (the reverse of the tenth audit\'s orphan results): a 400 before any upstream call', () => {
    describe('/v1/chat/completions', () => {
      const tools = [{ type: 'function' as const, function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } }];
      const call = (id: string) => ({ id, type: 'function' as const, function: { name: 'get_weather', arguments: '{"city":"Paris"}' } });
      const unanswered = (i: number, ids: string) =>
        `messages[${i}].tool_calls: an assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${ids}`;

      it('a call whose id no tool message answers before the next user message is refused in OpenAI\'s words, whatever upstream serves the model', async () => {
        for (const model of ['svc-fast', 'svc-vision']) {
          const before = upstreamCalls();
          await assert.rejects(
            openai.chat.completions.create({
              model,
              tools,
              messages: [
                { role: 'user', content: 'weather?' },
                { role: 'assistant', content: null, tool_calls: [call('call_1'), call('call_2'), call('call_3')] },
                { role: 'tool', tool_call_id: 'call_2', content: '22C' },
                { role: 'user', content: 'never mind' },
              ],
            }),
            (e: unknown) => e instanceof OpenAI.BadRequestError && e.error === unanswered(1, 'call_1, call_3'),
            model,
          );
          assert.equal(upstreamCalls(), before, model);
        }
      });

      it('also with no tool message at all, before another assistant message, and when the list ends on some of the results', async () => {
        const cases: [OpenAI.ChatCompletionMessageParam[], string][] = [
          [[{ role: 'user', content: 'weather?' }, { role: 'assistant', content: null, tool_calls: [call('call_1')] }, { role: 'user', content: 'well?' }], unanswered(1, 'call_1')],
          [[{ role: 'user', content: 'weather?' }, { role: 'assistant', content: null, tool_calls: [call('call_1')] }, { role: 'assistant', content: 'I could not check.' }, { role: 'user', content: 'ok' }], unanswered(1, 'call_1')],
          [[{ role: 'user', content: 'weather?' }, { role: 'assistant', content: null, tool_calls: [call('call_1'), call('call_2')] }, { role: 'tool', tool_call_id: 'call_1', content: '20C' }], unanswered(1, 'call_2')],
        ];
        for (const [messages, error] of cases) {
          await assert.rejects(openai.chat.completions.create({ model: 'svc-vision', tools, messages, stream: true }), (e: unknown) => e instanceof OpenAI.BadRequestError && e.error === error, error);
        }
      });

      it('an assistant message of calls that ends the list is not refused here (the upstream decides), and answered calls are served', async () => {
        const trailing = await openai.chat.completions.create({ model: 'svc-fast', tools, messages: [{ role: 'user', content: 'weather?' }, { role: 'assistant', content: null, tool_calls: [call('call_1')] }] });
        assert.equal(trailing.object, 'chat.completion');
        const answered = await openai.chat.completions.create({
          model: 'svc-vision',
          tools,
          messages: [
            { role: 'user', content: 'weather?' },
            { role: 'assistant', content: null, tool_calls: [call('call_1'), call('call_2')] },
            { role: 'tool', tool_call_id: 'call_2', content: '22C' },
            { role: 'system', content: 'answer briefly' },
            { role: 'tool', tool_call_id: 'call_1', content: '20C' },
            { role: 'assistant', content: 'Paris 20C, Rome 22C.' },
            { role: 'user', content: 'thanks' },
          ],
        });
        assert.equal(answered.object, 'chat.completion');
      });
    });

    describe('/v1/messages and count_tokens', () => {
      const tools = [{ name: 'get_weather', input_schema: { type: 'object' as const, properties: { city: { type: 'string' } } } }];
      const use = (id: string) => ({ type: 'tool_use' as const, id, name: 'get_weather', input: { city: 'Paris' } });
      const result = (id: string) => ({ type: 'tool_result' as const, tool_use_id: id, content: '20C' });
      const unanswered = (i: number, ids: string) =>
        `messages[${i}]: tool_use ids were found without tool_result blocks immediately after: ${ids}. Each tool_use block must have a corresponding tool_result block in the next message`;
      const isError = (error: string) => (e: unknown) => (e as { status?: number }).status === 400 && JSON.stringify((e as { error?: unknown }).error) === JSON.stringify({ error });

      it('a tool_use not answered in the next user turn is refused in Anthropic\'s words, whatever upstream serves the model, and count_tokens agrees', async () => {
        const messages: Anthropic.MessageParam[] = [
          { role: 'user', content: 'weather?' },
          { role: 'assistant', content: [use('toolu_1'), use('toolu_2'), use('toolu_3')] },
          { role: 'user', content: [result('toolu_2'), { type: 'text', text: 'the others failed' }] },
        ];
        for (const model of ['svc-fast', 'svc-vision']) {
          const before = upstreamCalls();
          await assert.rejects(anthropic.messages.create({ model, max_tokens: 50, tools, messages }), isError(unanswered(1, 'toolu_1, toolu_3')), model);
          await assert.rejects(anthropic.messages.countTokens({ model, tools, messages }), isError(unanswered(1, 'toolu_1, toolu_3')), model);
          assert.equal(upstreamCalls(), before, model);
        }
      });

      it('also when the next user turn has no result at all, further back in the conversation', async () => {
        const messages: Anthropic.MessageParam[] = [
          { role: 'user', content: 'weather?' },
          { role: 'assistant', content: [{ type: 'text', text: 'Let me check.' }, use('toolu_1')] },
          { role: 'user', content: 'never mind' },
          { role: 'assistant', content: 'OK.' },
          { role: 'user', content: 'hi' },
        ];
        await assert.rejects(anthropic.messages.create({ model: 'svc-vision', max_tokens: 50, tools, messages, stream: true }), isError(unanswered(1, 'toolu_1')));
      });

      it('results across consecutive user turns (one turn to Anthropic) answer the calls; a final assistant turn of calls is not refused here', async () => {
        const split = await anthropic.messages.create({
          model: 'svc-vision',
          max_tokens: 50,
          tools,
          messages: [
            { role: 'user', content: 'weather?' },
            { role: 'assistant', content: [use('toolu_1'), use('toolu_2')] },
            { role: 'user', content: [result('toolu_1')] },
            { role: 'user', content: [result('toolu_2')] },
          ],
        });
        assert.equal(split.type, 'message');
        const trailing = await anthropic.messages.create({ model: 'svc-fast', max_tokens: 50, tools, messages: [{ role: 'user', content: 'weather?' }, { role: 'assistant', content: [use('toolu_1')] }] });
        assert.equal(trailing.type, 'message');
      });
    });

    describe('/v1/responses and input_tokens', () => {
      const tools = [{ type: 'function' as const, name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } }, strict: false }];
      const fc = (id: string) => ({ type: 'function_call' as const, call_id: id, name: 'get_weather', arguments: '{"city":"Paris"}' });
      const fco = (id: string) => ({ type: 'function_call_output' as const, call_id: id, output: '20C' });

      it('a function_call of the input with no function_call_output after it is refused in OpenAI\'s words, whatever upstream, and input_tokens agrees', async () => {
        const input: OpenAI.Responses.ResponseInputItem[] = [{ role: 'user', content: 'weather?' }, fc('call_1'), fc('call_2'), fco('call_2'), { role: 'user', content: 'and?' }];
        for (const model of ['svc-fast', 'svc-vision']) {
          const before = upstreamCalls();
          await assert.rejects(
            openai.responses.create({ model, tools, input }),
            (e: unknown) => e instanceof OpenAI.BadRequestError && e.error === 'input[1].call_id: no tool output found for function call call_1',
            model,
          );
          await assert.rejects(openai.responses.inputTokens.count({ model, tools, input }), (e: unknown) => e instanceof OpenAI.BadRequestError && e.error === 'input[1].call_id: no tool output found for function call call_1', model);
          assert.equal(upstreamCalls(), before, model);
        }
      });

      it('the stored calls of previous_response_id need their outputs too', async () => {
        g.openai.chat.enqueue({ toolCalls: [{ name: 'get_weather', arguments: { city: 'Rome' } }] });
        const first = await openai.responses.create({ model: 'svc-fast', tools, input: 'weather in Rome?' });
        const call = first.output.find((o) => o.type === 'function_call')!;
        await assert.rejects(
          openai.responses.create({ model: 'svc-fast', tools, previous_response_id: first.id, input: 'never mind' }),
          (e: unknown) => e instanceof OpenAI.BadRequestError && e.error === `input: no tool output found for function call ${call.call_id}`,
        );
        const next = await openai.responses.create({ model: 'svc-fast', tools, previous_response_id: first.id, input: [fco(call.call_id), { role: 'user', content: 'thanks' }] });
        assert.equal(next.status, 'completed');
      });

      it('an output anywhere after its call answers it; calls that end the input are not refused here', async () => {
        const r = await openai.responses.create({ model: 'svc-fast', store: false, tools, input: [{ role: 'user', content: 'weather?' }, fc('call_1'), { role: 'user', content: 'go on' }, fco('call_1')] });
        assert.equal(r.status, 'completed');
        const trailing = await openai.responses.create({ model: 'svc-fast', store: false, tools, input: [{ role: 'user', content: 'weather?' }, fc('call_1')] });
        assert.equal(trailing.status, 'completed');
      });
    });
  });

  describe('tool_use ids must be unique across a /v1/messages request, as Anthropic requires', () => {
    const use = (id: string) => ({ type: 'tool_use' as const, id, name: 'get_weather', input: { city: 'Paris' } });
    const result = (id: string) => ({ type: 'tool_result' as const, tool_use_id: id, content: '20C' });
    const tools = [{ name: 'get_weather', input_schema: { type: 'object' as const, properties: { city: { type: 'string' } } } }];

    it('a repeated id, in one turn or an earlier one (a history from a server that numbers calls per turn), is a 400 in Anthropic\'s words before any upstream call; count_tokens agrees', async () => {
      const cases: [Anthropic.MessageParam[], string][] = [
        [[{ role: 'user', content: 'x' }, { role: 'assistant', content: [use('call_0'), use('call_0')] }, { role: 'user', content: [result('call_0')] }], 'messages[1].content[1].id: tool_use ids must be unique'],
        [
          [
            { role: 'user', content: 'x' },
            { role: 'assistant', content: [use('call_0')] },
            { role: 'user', content: [result('call_0')] },
            { role: 'assistant', content: [{ type: 'text', text: 'again' }, use('call_0')] },
            { role: 'user', content: [result('call_0')] },
          ],
          'messages[3].content[1].id: tool_use ids must be unique',
        ],
      ];
      for (const [messages, error] of cases) {
        for (const model of ['svc-fast', 'svc-vision']) {
          const before = upstreamCalls();
          const isError = (e: unknown) => (e as { status?: number }).status === 400 && JSON.stringify((e as { error?: unknown }).error) === JSON.stringify({ error });
          await assert.rejects(anthropic.messages.create({ model, max_tokens: 50, tools, messages }), isError, `${model} ${error}`);
          await assert.rejects(anthropic.messages.countTokens({ model, tools, messages }), isError, `${model} ${error}`);
          assert.equal(upstreamCalls(), before, model);
        }
      }
    });
  });
});
