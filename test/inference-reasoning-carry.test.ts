import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { catalogYaml, startGateway, type Gateway } from './helpers/gateway.ts';
import { createTestAccount, type TestAccount } from './helpers/inference.ts';

/**
 * Anthropic thinking carried across tool calls by clients of the official `openai` and
 * `@anthropic-ai/sdk` SDKs, over real HTTP, against the fake Anthropic upstream (which, like the
 * API, refuses a tool-use continuation with thinking on whose last assistant turn does not start
 * with a thinking block, and any block it did not sign): chat completions through
 * `reasoning_details` (OpenRouter's convention), responses through reasoning items'
 * `encrypted_content`, messages through the `thinking` blocks' `signature` and the
 * `redacted_thinking` blocks' `data`. What a client carries is sealed
 * (docs/api-decisions.md, "Reasoning"): it shows nothing of the upstream, a token changed or
 * issued to another account is a 400, and a token issued by one instance opens on another
 * instance of the same database.
 */

const THOUGHT = 'The user asks for the weather in Paris; I should call the weather tool.';
const REDACTED = 'EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpP';
const SIGNATURE = 'EqQBfakeanthropicsignature';
const firstTurn = { reasoning: THOUGHT, redactedThinking: REDACTED, toolCalls: [{ name: 'get_weather', arguments: { city: 'Paris' } }], usage: { input: 80, cached: 0, output: 60 } };
const secondTurn = { reasoning: 'The tool says sunny.', text: 'Sunny in Paris.', usage: { input: 150, cached: 40, output: 25 } };

type Detail = { type: string; text?: string; signature?: string; data?: string; format?: string; index?: number };
type ReasoningMessage = { reasoning?: string; reasoning_details?: Detail[] };

function lastBody(g: Gateway): Record<string, unknown> {
  return g.anthropic.requests.at(-1)!.body as Record<string, unknown>;
}

/** What the fake got for the continuation: thinking on, the first turn's blocks first in the assistant turn, unchanged. */
function assertBlocksWentBack(g: Gateway): void {
  const sent = lastBody(g);
  assert.deepEqual(sent.thinking, { type: 'enabled', budget_tokens: 8192 });
  const msgs = sent.messages as { role: string; content: { type: string }[] }[];
  assert.deepEqual(msgs.map((m) => m.role), ['user', 'assistant', 'user']);
  assert.deepEqual(msgs[1]!.content.slice(0, 2), [
    { type: 'thinking', thinking: THOUGHT, signature: SIGNATURE },
    { type: 'redacted_thinking', data: REDACTED },
  ]);
  assert.equal(msgs[1]!.content[2]!.type, 'tool_use');
}

/**
 * Nothing of the upstream's thinking forms in an answer, not even inside a token decoded as
 * base64url or base64. The Messages API names its blocks `redacted_thinking` itself: that name is
 * a form of the upstream only elsewhere.
 */
function assertSealed(answer: unknown, tokens: readonly string[], { messages = false } = {}): void {
  const text = JSON.stringify(answer);
  for (const s of ['EqQB', 'fakeanthropic', 'anthropic-claude', REDACTED.slice(0, 12), ...(messages ? [] : ['redacted_thinking'])]) assert.ok(!text.includes(s), s);
  assert.ok(tokens.length > 0);
  for (const t of tokens) {
    assert.match(t, /^[A-Za-z0-9_-]{40,}$/);
    for (const decoded of [Buffer.from(t, 'base64url').toString('latin1'), Buffer.from(t, 'base64').toString('latin1')]) {
      for (const s of ['EqQB', 'fakeanthropic', REDACTED.slice(0, 12), 'Paris']) assert.ok(!decoded.includes(s), `${s} in a decoded token`);
    }
  }
}

describe('reasoning carried across tool calls, sealed', () => {
  let g: Gateway;
  let acct: TestAccount;
  let other: TestAccount;
  before(async () => {
    g = await startGateway({ env: { RATE_LIMIT_INFERENCE_PER_MINUTE: '10000' } });
    acct = await createTestAccount(g.t, { credits: 10_000 });
    other = await createTestAccount(g.t, { credits: 10_000 });
  });
  after(() => g.close());

  describe('chat completions: reasoning and reasoning_details', () => {
    const tools: OpenAI.Chat.Completions.ChatCompletionTool[] = [
      { type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } },
    ];
    const base = { model: 'svc-vision', tools, reasoning_effort: 'medium' as const, max_tokens: 30000 };
    const question: OpenAI.Chat.Completions.ChatCompletionMessageParam = { role: 'user', content: 'Weather in Paris?' };

    /** The first turn's assistant message as a client keeps it: content, tool calls, reasoning and reasoning_details. */
    async function firstAnswer(client: OpenAI, stream: boolean): Promise<{ message: OpenAI.Chat.Completions.ChatCompletionAssistantMessageParam & ReasoningMessage; answer: unknown }> {
      if (!stream) {
        const r = await client.chat.completions.create({ ...base, messages: [question] });
        const m = r.choices[0]!.message as OpenAI.Chat.Completions.ChatCompletionMessage & ReasoningMessage;
        assert.equal(r.choices[0]!.finish_reason, 'tool_calls');
        return { message: { role: 'assistant', content: m.content, tool_calls: m.tool_calls, reasoning: m.reasoning, reasoning_details: m.reasoning_details }, answer: r };
      }
      const chunks: OpenAI.Chat.Completions.ChatCompletionChunk[] = [];
      for await (const c of await client.chat.completions.create({ ...base, messages: [question], stream: true })) chunks.push(c);
      // Accumulated as OpenRouter clients do: reasoning text joined, reasoning_details entries kept in order, tool calls by index.
      let reasoning = '';
      const details: Detail[] = [];
      const calls: { id: string; type: 'function'; function: { name: string; arguments: string } }[] = [];
      for (const c of chunks) {
        const d = c.choices[0]?.delta as (OpenAI.Chat.Completions.ChatCompletionChunk.Choice.Delta & ReasoningMessage) | undefined;
        if (!d) continue;
        reasoning += d.reasoning ?? '';
        details.push(...(d.reasoning_details ?? []));
        for (const t of d.tool_calls ?? []) {
          calls[t.index] ??= { id: t.id!, type: 'function', function: { name: t.function!.name!, arguments: '' } };
          calls[t.index]!.function.arguments += t.function?.arguments ?? '';
        }
      }
      assert.equal(chunks.at(-1)!.choices[0]!.finish_reason, 'tool_calls');
      return { message: { role: 'assistant', content: null, tool_calls: calls, reasoning, reasoning_details: details }, answer: chunks };
    }

    for (const stream of [false, true]) {
      const s = stream ? 'streamed' : 'not streamed';

      it(`a tool-call round trip (${s}): the second request carries reasoning_details and the upstream gets its signed blocks back`, async () => {
        g.anthropic.chat.enqueue(firstTurn, secondTurn);
        const client = g.client(acct.key);
        const { message, answer } = await firstAnswer(client, stream);
        assert.equal(message.reasoning, THOUGHT);
        const details = message.reasoning_details!;
        assert.ok(details.every((d) => d.format === 'svc-reasoning-v1'), JSON.stringify(details));
        const signed = details.filter((d) => d.signature);
        const encrypted = details.filter((d) => d.type === 'reasoning.encrypted');
        assert.deepEqual(signed.map((d) => [d.type, d.index]), [['reasoning.text', 0]]);
        assert.deepEqual(encrypted.map((d) => d.index), [1]);
        assert.equal(details.filter((d) => d.index === 0).map((d) => d.text).join(''), THOUGHT);
        assertSealed(answer, [signed[0]!.signature!, encrypted[0]!.data!]);

        const callId = message.tool_calls![0]!.id;
        const second = await client.chat.completions.create({
          ...base,
          messages: [question, message as OpenAI.Chat.Completions.ChatCompletionAssistantMessageParam, { role: 'tool', tool_call_id: callId, content: '{"sky":"sunny"}' }],
        });
        assertBlocksWentBack(g);
        assert.equal(second.choices[0]!.message.content, 'Sunny in Paris.');
        assert.equal((second.choices[0]!.message as ReasoningMessage).reasoning, 'The tool says sunny.');
      });
    }

    it('entries merged by index (as the AI SDK keeps them), or only the tokens, carry the blocks back the same', async () => {
      g.anthropic.chat.enqueue(firstTurn);
      const client = g.client(acct.key);
      const { message } = await firstAnswer(client, true);
      const all = message.reasoning_details!;
      const merged: Detail[] = [];
      for (const d of all) {
        const last = merged.at(-1);
        if (last && last.index === d.index && d.type === 'reasoning.text') merged[merged.length - 1] = { ...last, text: (last.text ?? '') + (d.text ?? ''), signature: last.signature ?? d.signature };
        else merged.push({ ...d });
      }
      assert.equal(merged.length, 2);
      for (const details of [merged, all.filter((d) => d.signature || d.data)]) {
        g.anthropic.chat.enqueue(secondTurn);
        await client.chat.completions.create({
          ...base,
          messages: [question, { ...message, reasoning_details: details } as never, { role: 'tool', tool_call_id: message.tool_calls![0]!.id, content: 'sunny' }],
        });
        assertBlocksWentBack(g);
      }
    });

    it('without reasoning_details the continuation goes without thinking, as the API requires', async () => {
      g.anthropic.chat.enqueue(firstTurn, secondTurn);
      const client = g.client(acct.key);
      const { message } = await firstAnswer(client, false);
      const { reasoning_details: _d, reasoning: _r, ...bare } = message;
      const r = await client.chat.completions.create({ ...base, messages: [question, bare, { role: 'tool', tool_call_id: message.tool_calls![0]!.id, content: 'sunny' }] });
      assert.equal(r.choices[0]!.message.content, 'Sunny in Paris.');
      assert.equal(lastBody(g).thinking, undefined);
    });

    it('a changed token, or one issued to another account, is a 400 naming the field; nothing reaches the upstream', async () => {
      g.anthropic.chat.enqueue(firstTurn);
      const { message } = await firstAnswer(g.client(acct.key), false);
      const details = message.reasoning_details!;
      const signature = details[0]!.signature!;
      const changed = signature.slice(0, 20) + (signature[20] === 'A' ? 'B' : 'A') + signature.slice(21);
      const requests = g.anthropic.requests.length;
      const cases: [OpenAI, Detail[], string][] = [
        [g.client(acct.key), [{ ...details[0]!, signature: changed }, details[1]!], 'messages[1].reasoning_details[0].signature'],
        [g.client(acct.key), [details[0]!, { ...details[1]!, data: `${details[1]!.data!}A` }], 'messages[1].reasoning_details[1].data'],
        [g.client(other.key), details, 'messages[1].reasoning_details[0].signature'],
      ];
      for (const [client, reasoningDetails, field] of cases) {
        await assert.rejects(
          client.chat.completions.create({ ...base, messages: [question, { ...message, reasoning_details: reasoningDetails } as never, { role: 'tool', tool_call_id: message.tool_calls![0]!.id, content: 'sunny' }] }),
          (e: unknown) => e instanceof OpenAI.BadRequestError && JSON.stringify(e.error).includes(`${field}: is not reasoning content this service issued`),
        );
      }
      assert.equal(g.anthropic.requests.length, requests);
    });

    it('an OpenAI-style deployment gets no reasoning blocks, whatever the client sends back', async () => {
      g.anthropic.chat.enqueue(firstTurn);
      const { message } = await firstAnswer(g.client(acct.key), false);
      g.openai.chat.enqueue({ text: 'Sunny.' });
      await g.client(acct.key).chat.completions.create({
        ...base,
        model: 'svc-fast',
        messages: [question, message as OpenAI.Chat.Completions.ChatCompletionAssistantMessageParam, { role: 'tool', tool_call_id: message.tool_calls![0]!.id, content: 'sunny' }],
      });
      const sent = JSON.stringify(g.openai.requests.at(-1)!.body);
      for (const s of ['EqQB', REDACTED.slice(0, 12), 'reasoning_details', 'thinking']) assert.ok(!sent.includes(s), s);
    });
  });

  describe('responses: include reasoning.encrypted_content', () => {
    const tools: OpenAI.Responses.FunctionTool[] = [{ type: 'function', name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } }, strict: false }];
    const base = { model: 'svc-vision', tools, reasoning: { effort: 'medium' as const }, max_output_tokens: 30000, include: ['reasoning.encrypted_content' as const] };

    async function create(client: OpenAI, stream: boolean, params: OpenAI.Responses.ResponseCreateParamsNonStreaming): Promise<OpenAI.Responses.Response> {
      return stream ? client.responses.stream(params as Parameters<typeof client.responses.stream>[0]).finalResponse() : client.responses.create(params);
    }

    for (const stream of [false, true]) {
      const s = stream ? 'streamed' : 'not streamed';

      it(`explicit input items and previous_response_id (${s}): the sealed encrypted_content carries the signed blocks back`, async () => {
        const client = g.client(acct.key);
        g.anthropic.chat.enqueue(firstTurn, secondTurn, firstTurn, secondTurn);
        const first = await create(client, stream, { ...base, input: 'Weather in Paris?', store: false });
        const rs = first.output[0] as OpenAI.Responses.ResponseReasoningItem;
        assertSealed(first, [rs.encrypted_content!]);
        const call = first.output[1] as OpenAI.Responses.ResponseFunctionToolCall;
        await create(client, stream, {
          ...base,
          store: false,
          input: [{ role: 'user', content: 'Weather in Paris?' }, ...(first.output as OpenAI.Responses.ResponseInputItem[]), { type: 'function_call_output', call_id: call.call_id, output: 'sunny' }],
        });
        assertBlocksWentBack(g);

        const stored = await create(client, stream, { ...base, input: 'Weather in Paris?' });
        assertSealed(stored, [(stored.output[0] as OpenAI.Responses.ResponseReasoningItem).encrypted_content!]);
        const storedCall = stored.output[1] as OpenAI.Responses.ResponseFunctionToolCall;
        const second = await create(client, stream, { ...base, previous_response_id: stored.id, input: [{ type: 'function_call_output', call_id: storedCall.call_id, output: 'sunny' }] });
        assertBlocksWentBack(g);
        assert.equal(second.status, 'completed');
      });
    }

    it('an encrypted_content changed in one character, or issued to another account, is a 400 naming the field', async () => {
      g.anthropic.chat.enqueue(firstTurn);
      const first = await g.client(acct.key).responses.create({ ...base, input: 'Weather in Paris?', store: false });
      const rs = first.output[0] as OpenAI.Responses.ResponseReasoningItem;
      const token = rs.encrypted_content!;
      const changed = token.slice(0, 30) + (token[30] === 'A' ? 'B' : 'A') + token.slice(31);
      const requests = g.anthropic.requests.length;
      for (const [key, content] of [[acct.key, changed], [other.key, token]] as const) {
        await assert.rejects(
          g.client(key).responses.create({ ...base, input: [{ role: 'user', content: 'x' }, { ...rs, encrypted_content: content }] }),
          (e: unknown) => e instanceof OpenAI.BadRequestError && JSON.stringify(e.error).includes('input[1].encrypted_content: is not reasoning content this service issued'),
        );
      }
      assert.equal(g.anthropic.requests.length, requests, 'nothing reached the upstream');
    });
  });

  describe('messages: thinking and redacted_thinking blocks', () => {
    const tools: Anthropic.Tool[] = [{ name: 'get_weather', input_schema: { type: 'object', properties: { city: { type: 'string' } } } }];
    const base = { model: 'svc-vision', tools, thinking: { type: 'enabled' as const, budget_tokens: 8192 }, max_tokens: 16000 };
    const question: Anthropic.MessageParam = { role: 'user', content: 'Weather in Paris?' };
    const anthropic = (key: string) => new Anthropic({ apiKey: key, baseURL: `${g.t.url}/inference`, maxRetries: 0 });

    /** The answer as the SDK gives it, and what the client saw: the message, or every event of the stream. */
    async function ask(client: Anthropic, stream: boolean, messages: Anthropic.MessageParam[]): Promise<{ message: Anthropic.Message; seen: unknown }> {
      if (!stream) {
        const message = await client.messages.create({ ...base, messages });
        return { message, seen: message };
      }
      const events: Anthropic.MessageStreamEvent[] = [];
      const s = client.messages.stream({ ...base, messages });
      s.on('streamEvent', (e) => events.push(e));
      const message = await s.finalMessage();
      assert.ok(events.some((e) => e.type === 'content_block_delta' && e.delta.type === 'signature_delta'), 'a signature_delta event');
      return { message, seen: events };
    }

    /** The continuation the client sends: the first answer's content as it is, then the tool's result. */
    const continuation = (content: Anthropic.ContentBlockParam[], callId: string): Anthropic.MessageParam[] => [
      question,
      { role: 'assistant', content },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: callId, content: '{"sky":"sunny"}' }] },
    ];

    for (const stream of [false, true]) {
      const s = stream ? 'streamed' : 'not streamed';

      it(`a tool-use round trip (${s}): the client sends the blocks back as given, the upstream gets its own signature and data`, async () => {
        g.anthropic.chat.enqueue(firstTurn, secondTurn);
        const client = anthropic(acct.key);
        const { message: first, seen } = await ask(client, stream, [question]);
        assert.equal(first.stop_reason, 'tool_use');
        assert.deepEqual(first.content.map((b) => b.type), ['thinking', 'redacted_thinking', 'tool_use']);
        const thinking = first.content[0] as Anthropic.ThinkingBlock;
        const redacted = first.content[1] as Anthropic.RedactedThinkingBlock;
        assert.equal(thinking.thinking, THOUGHT);
        assertSealed(seen, [thinking.signature, redacted.data], { messages: true });
        if (stream) {
          // The signature_delta event and the redacted block carry the tokens the final message has.
          const events = seen as Anthropic.MessageStreamEvent[];
          const delta = events.find((e) => e.type === 'content_block_delta' && e.delta.type === 'signature_delta') as Anthropic.RawContentBlockDeltaEvent;
          assert.equal((delta.delta as Anthropic.SignatureDelta).signature, thinking.signature);
          const start = events.find((e) => e.type === 'content_block_start' && e.content_block.type === 'redacted_thinking') as Anthropic.RawContentBlockStartEvent;
          assert.equal((start.content_block as Anthropic.RedactedThinkingBlock).data, redacted.data);
        }

        const callId = (first.content[2] as Anthropic.ToolUseBlock).id;
        const { message: second } = await ask(client, stream, continuation(first.content, callId));
        assertBlocksWentBack(g);
        assert.deepEqual(second.content.map((b) => b.type), ['thinking', 'text']);
        assert.equal((second.content[1] as Anthropic.TextBlock).text, 'Sunny in Paris.');
      });
    }

    it('a changed signature or data, or blocks issued to another account, are a 400 naming the field; nothing reaches the upstream', async () => {
      g.anthropic.chat.enqueue(firstTurn);
      const { message: first } = await ask(anthropic(acct.key), false, [question]);
      const [thinking, redacted, use] = first.content as [Anthropic.ThinkingBlock, Anthropic.RedactedThinkingBlock, Anthropic.ToolUseBlock];
      const change = (t: string) => t.slice(0, 20) + (t[20] === 'A' ? 'B' : 'A') + t.slice(21);
      const requests = g.anthropic.requests.length;
      const cases: [string, Anthropic.ContentBlockParam[], string][] = [
        [acct.key, [{ ...thinking, signature: change(thinking.signature) }, redacted, use], 'messages[1].content[0].signature'],
        [acct.key, [thinking, { ...redacted, data: change(redacted.data) }, use], 'messages[1].content[1].data'],
        // The upstream's own values, as the old base64url form would have given them back.
        [acct.key, [{ ...thinking, signature: Buffer.from(SIGNATURE).toString('base64url') }, redacted, use], 'messages[1].content[0].signature'],
        [acct.key, [thinking, { ...redacted, data: REDACTED }, use], 'messages[1].content[1].data'],
        // One block's token in the other's field.
        [acct.key, [{ ...thinking, signature: redacted.data }, redacted, use], 'messages[1].content[0].signature'],
        [other.key, first.content, 'messages[1].content[0].signature'],
      ];
      for (const [key, content, field] of cases) {
        await assert.rejects(
          anthropic(key).messages.create({ ...base, messages: continuation(content, use.id) }),
          (e: unknown) => e instanceof Anthropic.BadRequestError && (e.error as { error: string }).error === `${field}: is not reasoning content this service issued`,
        );
      }
      assert.equal(g.anthropic.requests.length, requests, 'nothing reached the upstream');
    });
  });

  describe('two instances on one database', () => {
    let b: Gateway;
    before(async () => {
      // The second instance adopts the first one's SECRETS_KEY (both generated it) and calls the same fakes.
      b = await startGateway({ env: { RATE_LIMIT_INFERENCE_PER_MINUTE: '10000' }, database: g.t.database, catalog: () => catalogYaml({ openai: g.openai, anthropic: g.anthropic, rerank: g.rerank }) });
    });
    after(() => b.close());

    it('share the sealing key', () => {
      assert.ok(b.t.deps.secretsKey.equals(g.t.deps.secretsKey));
    });

    for (const stream of [false, true]) {
      const s = stream ? 'streamed' : 'not streamed';

      it(`a response stored by one continues on the other through previous_response_id, and tokens of one open on the other (${s})`, async () => {
        g.anthropic.chat.enqueue(firstTurn, secondTurn);
        const tools: OpenAI.Responses.FunctionTool[] = [{ type: 'function', name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } }, strict: false }];
        const params = { model: 'svc-vision', tools, reasoning: { effort: 'medium' as const }, max_output_tokens: 30000 };
        const first = await g.client(acct.key).responses.create({ ...params, input: 'Weather in Paris?' });
        const call = first.output[1] as OpenAI.Responses.ResponseFunctionToolCall;
        const next = { ...params, previous_response_id: first.id, input: [{ type: 'function_call_output' as const, call_id: call.call_id, output: 'sunny' }] };
        const second = stream ? await b.client(acct.key).responses.stream(next).finalResponse() : await b.client(acct.key).responses.create(next);
        assert.equal(second.status, 'completed');
        assertBlocksWentBack(g);

        // A chat client's reasoning_details from one instance, sent back to the other.
        g.anthropic.chat.enqueue(firstTurn, secondTurn);
        const chatTools: OpenAI.Chat.Completions.ChatCompletionTool[] = [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object' } } }];
        const chat = { model: 'svc-vision', tools: chatTools, reasoning_effort: 'medium' as const, max_tokens: 30000 };
        const r = await g.client(acct.key).chat.completions.create({ ...chat, messages: [{ role: 'user', content: 'Weather in Paris?' }] });
        const m = r.choices[0]!.message as OpenAI.Chat.Completions.ChatCompletionMessage & ReasoningMessage;
        await b.client(acct.key).chat.completions.create({
          ...chat,
          messages: [
            { role: 'user', content: 'Weather in Paris?' },
            { role: 'assistant', content: m.content, tool_calls: m.tool_calls, reasoning_details: m.reasoning_details } as never,
            { role: 'tool', tool_call_id: m.tool_calls![0]!.id, content: 'sunny' },
          ],
        });
        assertBlocksWentBack(g);
      });
    }
  });
});
