import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import type { CanonicalMessage, StreamPart } from '../../canonical/chat.ts';
import { convertToAnthropicMessages } from '../../providers/anthropic/convert-to-anthropic-messages.ts';
import { parseAnthropicStream } from '../../providers/anthropic/parse-anthropic-stream.ts';
import type { SseEvent } from '../../providers/provider-stream.ts';
import { createReasoningSealers } from '../../reasoning-sealer.ts';
import { encodeReasoningContent, type ReasoningSealer } from '../reasoning-content.ts';
import { encodeSseEvent } from '../sse.ts';
import { anthropicErrorType, createMessagesStreamEncoder } from './create-messages-stream-encoder.ts';
import { formatMessage } from './format-message.ts';
import { messagesMaxTokens, parseMessagesRequest } from './parse-messages-request.ts';
import { openBlockValue, sealBlockValue } from './sealed-tokens.ts';

const identity = { id: 'msg_abc', model: 'svc-fast', created: 0 };
const sealers = createReasoningSealers(randomBytes(32));
const sealer = sealers(1);
/** A sealer that must not be used: a request or answer without signed reasoning does no sealing work. */
const unused: ReasoningSealer = {
  seal: () => assert.fail('sealed without reasoning'),
  open: () => assert.fail('opened without reasoning'),
};

function badRequest(body: unknown, message: string) {
  assert.throws(() => parseMessagesRequest(body, sealer), (e: unknown) => (e as { status?: number }).status === 400 && (e as Error).message === message);
}

describe('parseMessagesRequest', () => {
  const base = { model: 'svc-fast', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] };

  it('reads system blocks, tool results first as tool messages, assistant thinking and tool use', () => {
    const { request } = parseMessagesRequest({
      ...base,
      system: [{ type: 'text', text: 'Be brief.', cache_control: { type: 'ephemeral' } }],
      messages: [
        { role: 'user', content: 'weather?' },
        {
          role: 'assistant',
          content: [
            { type: 'thinking', thinking: 'hmm', signature: sealBlockValue('signature', 'sig', sealer) },
            { type: 'redacted_thinking', data: sealBlockValue('data', 'EmwKredacted', sealer) },
            { type: 'text', text: 'checking' },
            { type: 'tool_use', id: 'call_1', name: 'w', input: { city: 'Paris' } },
          ],
        },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'call_1', content: 'sunny', is_error: false }, { type: 'text', text: 'thanks' }] },
      ],
      top_k: 5,
      thinking: { type: 'enabled', budget_tokens: 1024 },
      max_tokens: 2000,
    }, sealer);
    assert.deepEqual(request.messages, [
      { role: 'system', content: 'Be brief.', cacheControl: { type: 'ephemeral' } },
      { role: 'user', content: [{ type: 'text', text: 'weather?' }] },
      { role: 'assistant', content: 'checking', toolCalls: [{ id: 'call_1', name: 'w', arguments: '{"city":"Paris"}' }], reasoning: [{ type: 'thinking', thinking: 'hmm', signature: 'sig' }, { type: 'redacted_thinking', data: 'EmwKredacted' }] },
      { role: 'tool', toolCallId: 'call_1', content: 'sunny', isError: false },
      { role: 'user', content: [{ type: 'text', text: 'thanks' }] },
    ]);
    assert.equal(request.topK, 5);
    assert.deepEqual(request.reasoning, { budgetTokens: 1024 });
  });

  it('refuses what it cannot serve with a 400 naming the field', () => {
    badRequest({ ...base, messages: [] }, 'messages: must not be empty');
    badRequest({ ...base, max_tokens: 0 }, 'max_tokens: must be >= 1');
    badRequest({ ...base, temperature: 1.5 }, 'temperature: must be <= 1');
    badRequest({ ...base, tools: [{ type: 'web_search_20250305', name: 'web_search' }] }, 'tools[0].type: server tool web_search_20250305 (web search) is not supported');
    badRequest({ ...base, tools: [{ type: 'memory_20250818', name: 'memory' }] }, 'tools[0].type: server tool memory_20250818 (memory) is not supported');
    badRequest({ ...base, tools: [{ name: 'x' }] }, 'tools[0].input_schema: is required');
    badRequest({ ...base, messages: [{ role: 'user', content: [{ type: 'document', source: {} }] }] }, 'messages[0].content[0].source.type: is required');
    badRequest({ ...base, messages: [{ role: 'user', content: [{ type: 'search_result', source: 's' }] }] }, 'messages[0].content[0].type: unsupported content block type "search_result" here; expected text, image, image_url, document or tool_result');
    badRequest({ ...base, messages: [{ role: 'user', content: [{ type: 'image', source: { type: 'base64', media_type: 'image/tiff', data: 'AA' } }] }] }, 'messages[0].content[0].source.media_type: must be one of image/jpeg, image/png, image/gif, image/webp');
    badRequest({ ...base, thinking: { type: 'enabled', budget_tokens: 4000 } }, 'thinking.budget_tokens: must be less than max_tokens');
    badRequest({ ...base, tools: [{ name: 'w', input_schema: { type: 'object' } }], tool_choice: { type: 'tool', name: 'nope' } }, 'tool_choice.name: no tool named nope in tools');
    badRequest({ ...base, tool_choice: { type: 'tool', name: 'nope' } }, 'tool_choice: may only be specified while providing tools');
    badRequest({ ...base, output_config: { format: { type: 'json_schema' } } }, 'output_config.format.schema: is required');
  });

  it('opens only tokens it gave this account for that field: anything else is a 400 naming the field', () => {
    const turn = (block: object) => ({ ...base, messages: [{ role: 'user', content: 'x' }, { role: 'assistant', content: [block] }, { role: 'user', content: 'y' }] });
    const token = sealBlockValue('signature', 'EqQBsig', sealer);
    const changed = token.slice(0, 20) + (token[20] === 'A' ? 'B' : 'A') + token.slice(21);
    const field = 'messages[1].content[0].signature: is not reasoning content this service issued';
    badRequest(turn({ type: 'thinking', thinking: 't', signature: changed }), field);
    badRequest(turn({ type: 'thinking', thinking: 't', signature: sealBlockValue('signature', 'EqQBsig', sealers(2)) }), field);
    badRequest(turn({ type: 'thinking', thinking: 't', signature: 'EqQBsig' }), field);
    badRequest(turn({ type: 'thinking', thinking: 't', signature: Buffer.from('EqQBsig').toString('base64url') }), field);
    // A redacted token in the signature, or a chat client's sealed block: another field's token.
    badRequest(turn({ type: 'thinking', thinking: 't', signature: sealBlockValue('data', 'EqQBsig', sealer) }), field);
    badRequest(turn({ type: 'thinking', thinking: 't', signature: encodeReasoningContent([{ type: 'thinking', thinking: 't', signature: 'EqQBsig' }], sealer)! }), field);
    const data = 'messages[1].content[0].data: is not reasoning content this service issued';
    badRequest(turn({ type: 'redacted_thinking', data: token }), data);
    badRequest(turn({ type: 'redacted_thinking', data: 'EmwKredacted' }), data);
    badRequest(turn({ type: 'redacted_thinking', data: sealBlockValue('data', 'EmwK', sealers(2)) }), data);
  });

  it('does no sealing work for a request without signed reasoning; an empty signature stays empty', () => {
    const { request } = parseMessagesRequest(
      {
        ...base,
        messages: [
          { role: 'user', content: 'x' },
          { role: 'assistant', content: [{ type: 'thinking', thinking: 'plain' }, { type: 'text', text: 'a' }] },
          { role: 'user', content: 'y' },
          { role: 'assistant', content: 'b' },
          { role: 'user', content: 'z' },
        ],
      },
      unused,
    );
    assert.deepEqual(request.messages[1], { role: 'assistant', content: 'a', toolCalls: [], reasoning: [{ type: 'thinking', thinking: 'plain' }] });
    const empty = parseMessagesRequest({ ...base, messages: [{ role: 'assistant', content: [{ type: 'thinking', thinking: 'plain', signature: '' }] }] }, unused);
    assert.deepEqual(empty.request.messages[0], { role: 'assistant', content: '', toolCalls: [], reasoning: [{ type: 'thinking', thinking: 'plain', signature: '' }] });
  });

  it('defaults max_tokens to 4,096 plus the thinking budget, at most the model output', () => {
    const { request } = parseMessagesRequest({ model: 'm', messages: [{ role: 'user', content: 'x' }] }, sealer);
    assert.equal(request.maxTokens, undefined);
    assert.equal(messagesMaxTokens(request, { id: 'm', maxOutput: null }), 4096);
    assert.equal(messagesMaxTokens(request, { id: 'm', maxOutput: 1000 }), 1000);
    const thinking = parseMessagesRequest({ model: 'm', thinking: { type: 'enabled', budget_tokens: 2000 }, messages: [{ role: 'user', content: 'x' }] }, sealer);
    assert.equal(messagesMaxTokens(thinking.request, { id: 'm', maxOutput: null }), 6096);
    assert.equal(messagesMaxTokens(thinking.request, { id: 'm', maxOutput: 5000 }), 5000);
    assert.throws(() => messagesMaxTokens(thinking.request, { id: 'm', maxOutput: 2000 }), /thinking.budget_tokens: must be less than 2000, the max output of model m/);
  });
});

describe('formatMessage', () => {
  it('orders thinking, text, tool use; reports the stop sequence and the Anthropic usage', () => {
    const m = formatMessage(
      {
        text: 'one',
        reasoning: 'r',
        reasoningBlocks: [{ type: 'thinking', thinking: 'r', signature: 'sig' }],
        toolCalls: [],
        finishReason: 'stop',
        stopSequence: 'two',
        usage: { inputTokens: 100, cachedInputTokens: 60, cacheWriteInputTokens: 30, outputTokens: 5 },
        usageEstimated: false,
      },
      identity,
      sealer,
    );
    const signature = (m.content[0] as { signature: string }).signature;
    assert.deepEqual(m.content, [{ type: 'thinking', thinking: 'r', signature }, { type: 'text', text: 'one' }]);
    assert.equal(openBlockValue('signature', signature, sealer), 'sig');
    assert.equal(m.stop_reason, 'stop_sequence');
    assert.equal(m.stop_sequence, 'two');
    assert.deepEqual(m.usage, {
      input_tokens: 10,
      cache_creation_input_tokens: 30,
      cache_read_input_tokens: 60,
      cache_creation: { ephemeral_5m_input_tokens: 30, ephemeral_1h_input_tokens: 0 },
      output_tokens: 5,
      service_tier: 'standard',
    });
  });

  it("gives sealed tokens for signatures and redacted data: the account's, never the upstream's value, not even decoded", () => {
    const blocks = [
      { type: 'thinking' as const, thinking: 'First.', signature: 'EqQBupstreamsignature' },
      { type: 'redacted_thinking' as const, data: 'EmwKAhgBEgy3va3pzix' },
    ];
    const base = { text: '', reasoning: 'First.', toolCalls: [], finishReason: 'stop' as const, usage: { inputTokens: 1, cachedInputTokens: 0, outputTokens: 1 }, usageEstimated: false };
    const m = formatMessage({ ...base, reasoningBlocks: blocks }, identity, sealer);
    const [thinking, redacted] = m.content as [{ signature: string }, { data: string }];
    assert.deepEqual(m.content, [{ type: 'thinking', thinking: 'First.', signature: thinking.signature }, { type: 'redacted_thinking', data: redacted.data }]);
    assert.equal(openBlockValue('signature', thinking.signature, sealer), 'EqQBupstreamsignature');
    assert.equal(openBlockValue('data', redacted.data, sealer), 'EmwKAhgBEgy3va3pzix');
    assert.equal(openBlockValue('signature', thinking.signature, sealers(2)), null);
    for (const token of [thinking.signature, redacted.data]) {
      for (const decoded of [token, Buffer.from(token, 'base64url').toString('latin1'), Buffer.from(token, 'base64').toString('latin1')]) {
        for (const s of ['EqQB', 'upstreamsignature', 'EmwK', 'AhgBEgy3']) assert.ok(!decoded.includes(s), `${s} in ${token}`);
      }
    }
    // Sealed afresh each time: the same signature never gives the same token.
    assert.notEqual((formatMessage({ ...base, reasoningBlocks: blocks }, identity, sealer).content[0] as { signature: string }).signature, thinking.signature);
  });

  it('does no sealing work for an answer without signed reasoning (unsigned reasoning has an empty signature)', () => {
    const base = { text: 'hi', reasoning: '', toolCalls: [], finishReason: 'stop' as const, usage: { inputTokens: 1, cachedInputTokens: 0, outputTokens: 1 }, usageEstimated: false };
    assert.deepEqual(formatMessage(base, identity, unused).content, [{ type: 'text', text: 'hi' }]);
    assert.deepEqual(formatMessage({ ...base, reasoning: 'plain' }, identity, unused).content, [{ type: 'thinking', thinking: 'plain', signature: '' }, { type: 'text', text: 'hi' }]);
  });
});

/** SSE text -> the events parseAnthropicStream reads. */
async function* events(text: string): AsyncGenerator<SseEvent> {
  for (const block of text.split('\n\n')) {
    if (block === '') continue;
    const [eventLine, dataLine] = block.split('\n');
    yield { event: eventLine!.slice(7), data: dataLine!.slice(6) };
  }
}

const contentPart: fc.Arbitrary<StreamPart[]> = fc.oneof(
  fc.string({ minLength: 1, maxLength: 8 }).map((text): StreamPart[] => [{ type: 'text-delta', text }]),
  fc.string({ minLength: 1, maxLength: 8 }).map((text): StreamPart[] => [{ type: 'reasoning-delta', text }]),
  fc
    .tuple(fc.constantFrom('a', 'b_c'), fc.dictionary(fc.constantFrom('x', 'y'), fc.integer()), fc.integer({ min: 1, max: 5 }))
    .map(([name, input, cut]): StreamPart[] => {
      const json = JSON.stringify(input);
      const at = Math.min(cut, json.length);
      return [
        { type: 'tool-call-start', index: -1, id: 'call_x', name },
        { type: 'tool-call-delta', index: -1, argumentsDelta: json.slice(0, at) },
        { type: 'tool-call-delta', index: -1, argumentsDelta: json.slice(at) },
      ];
    }),
);

describe('round trips through canonical (property)', () => {
  it('a stream encoded as Messages SSE and read back by the Anthropic adapter gives the same content', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(contentPart, { maxLength: 8 }), fc.constantFrom('stop' as const, 'length' as const), async (groups, reason) => {
        let tool = 0;
        const parts: StreamPart[] = groups.flatMap((g) => {
          if (g[0]!.type !== 'tool-call-start') return g;
          const index = tool++;
          return g.map((p) => ({ ...p, index }) as StreamPart);
        });
        const encoder = createMessagesStreamEncoder(identity, unused);
        let sse = encoder.start();
        for (const p of parts) sse += encoder.encode(p);
        sse += encoder.encode({ type: 'finish', reason: tool > 0 && reason === 'stop' ? 'tool_calls' : reason });
        sse += encoder.encode({ type: 'usage', usage: { inputTokens: 7, cachedInputTokens: 2, outputTokens: 3 }, estimated: false });
        sse += encoder.end();
        const back = [];
        for await (const e of parseAnthropicStream(events(sse), null, () => 'call_x')) back.push(e);
        const squash = (ps: readonly (StreamPart | { type: string; text?: string; name?: string; argumentsDelta?: string })[]) => {
          const text = ps.flatMap((p) => (p.type === 'text-delta' ? [(p as { text: string }).text] : [])).join('');
          const reasoning = ps.flatMap((p) => (p.type === 'reasoning-delta' ? [(p as { text: string }).text] : [])).join('');
          const calls: string[] = [];
          for (const p of ps) {
            if (p.type === 'tool-call-start') calls.push(`${(p as { name: string }).name}:`);
            if (p.type === 'tool-call-delta') calls[calls.length - 1] += (p as { argumentsDelta: string }).argumentsDelta;
          }
          return { text, reasoning, calls: calls.map((c) => (c.endsWith(':') ? `${c}{}` : c)) };
        };
        assert.deepEqual(squash(back), squash(parts));
        assert.deepEqual(back.filter((e) => e.type === 'reported-usage').at(-1), { type: 'reported-usage', usage: { inputTokens: 7, cachedInputTokens: 2, outputTokens: 3 } });
        assert.deepEqual(back.at(-1), { type: 'finish', reason: tool > 0 && reason === 'stop' ? 'tool_calls' : reason });
      }),
      { numRuns: 200 },
    );
  });

  // Text with something in it: blank text is refused in a user turn and left out of the wire form
  // (the API refuses it), so it has no round trip (convert-to-anthropic-messages.test.ts).
  const text = fc.string({ minLength: 1, maxLength: 10 }).filter((t) => /\S/.test(t));
  const turn: fc.Arbitrary<CanonicalMessage[]> = fc.oneof(
    text.map((t): CanonicalMessage[] => [
      { role: 'user', content: [{ type: 'text', text: t }] },
      { role: 'assistant', content: t, toolCalls: [] },
    ]),
    fc.tuple(text, fc.constantFrom('f', 'g'), text, fc.boolean()).map(([t, name, result, isError]): CanonicalMessage[] => [
      { role: 'user', content: [{ type: 'text', text: t, cacheControl: { type: 'ephemeral' } }] },
      { role: 'assistant', content: '', toolCalls: [{ id: 'call_1', name, arguments: '{"q":1}' }], reasoning: [{ type: 'thinking', thinking: t, signature: 'sig' }] },
      { role: 'tool', toolCallId: 'call_1', content: result, isError },
      { role: 'assistant', content: result, toolCalls: [] },
    ]),
  );

  it('a canonical conversation sent the Anthropic way and parsed back is the same conversation', () => {
    fc.assert(
      fc.property(fc.option(text, { nil: undefined }), fc.array(turn, { minLength: 1, maxLength: 5 }), (system, turns) => {
        // Each turn's call gets its own id: Anthropic refuses a tool_use id used twice in a request.
        const own = (m: CanonicalMessage, k: number): CanonicalMessage =>
          m.role === 'assistant' ? { ...m, toolCalls: m.toolCalls.map((c) => ({ ...c, id: `call_${k}` })) } : m.role === 'tool' ? { ...m, toolCallId: `call_${k}` } : m;
        const messages: CanonicalMessage[] = [...(system !== undefined ? [{ role: 'system' as const, content: system }] : []), ...turns.flatMap((t, k) => t.map((m) => own(m, k)))];
        // A final assistant turn ending in whitespace is refused, as the API refuses it: no round trip either.
        const last = messages.at(-1)!;
        fc.pre(!(last.role === 'assistant' && /\s$/u.test(last.content)));
        // More than four cache_control markers is refused, as the API refuses it: no round trip either.
        fc.pre(messages.filter((m) => m.role === 'user' && m.content.some((p) => p.cacheControl !== undefined)).length <= 4);
        const wire = convertToAnthropicMessages(messages);
        // What an Anthropic client holds: signatures as the service gave them.
        const clientMessages = JSON.parse(JSON.stringify(wire.messages), (k, v: unknown) => (k === 'signature' && typeof v === 'string' ? sealBlockValue('signature', v, sealer) : v));
        const back = parseMessagesRequest({ model: 'm', ...(wire.system !== undefined ? { system: wire.system } : {}), messages: clientMessages }, sealer).request.messages;
        assert.deepEqual(back, messages);
      }),
      { numRuns: 200 },
    );
  });
});

describe('citations (an Anthropic upstream citing a document)', () => {
  const citation = { type: 'char_location', cited_text: 'Rose 5%.', document_index: 0, start_char_index: 0, end_char_index: 8 };

  it('formats the upstream\'s text blocks, citations on the cited ones', () => {
    const m = formatMessage(
      {
        text: 'It rose 5%.',
        textBlocks: [{ text: 'It ' }, { text: 'rose 5%', citations: [citation] }, { text: '.' }],
        reasoning: '',
        toolCalls: [],
        finishReason: 'stop',
        usage: { inputTokens: 1, cachedInputTokens: 0, outputTokens: 1 },
        usageEstimated: false,
      },
      identity,
      unused,
    );
    assert.deepEqual(m.content, [{ type: 'text', text: 'It ' }, { type: 'text', text: 'rose 5%', citations: [citation] }, { type: 'text', text: '.' }]);
  });

  it('streams a cited block as its own block, citations_delta before its text, and reads back the same parts', async () => {
    const parts: StreamPart[] = [
      { type: 'text-delta', text: 'It ' },
      { type: 'citation', citation },
      { type: 'citation', citation: { ...citation, document_index: 1 } },
      { type: 'text-delta', text: 'rose 5%' },
      { type: 'text-break' },
      { type: 'citation', citation },
      { type: 'text-delta', text: ' twice' },
      { type: 'text-break' },
      { type: 'text-delta', text: '.' },
    ];
    const encoder = createMessagesStreamEncoder(identity, unused);
    let sse = encoder.start();
    for (const p of parts) sse += encoder.encode(p);
    sse += encoder.encode({ type: 'finish', reason: 'stop' });
    sse += encoder.encode({ type: 'usage', usage: { inputTokens: 1, cachedInputTokens: 0, outputTokens: 1 }, estimated: false });
    sse += encoder.end();
    const starts = [...sse.matchAll(/"content_block":(\{[^}]*\})/g)].map((m) => JSON.parse(m[1]!) as object);
    assert.deepEqual(starts, [
      { type: 'text', text: '' },
      { type: 'text', text: '', citations: [] },
      { type: 'text', text: '', citations: [] },
      { type: 'text', text: '' },
    ]);
    const back = [];
    for await (const e of parseAnthropicStream(events(sse), null, () => 'call_x')) back.push(e);
    assert.deepEqual(back.filter((e) => e.type !== 'reported-usage' && e.type !== 'finish'), parts);
  });
});

describe('createMessagesStreamEncoder', () => {
  it('writes text deltas from its template exactly as a generic event would be', () => {
    const encoder = createMessagesStreamEncoder(identity, sealer);
    encoder.start();
    encoder.encode({ type: 'reasoning-delta', text: 'hmm', signature: 'sig' });
    const texts = ['Hello', ' "quoted" \\ \n é \u2028 </script>', ''];
    const out = texts.map((text) => encoder.encode({ type: 'text-delta', text })).join('');
    const expected = (text: string) => encodeSseEvent('content_block_delta', { type: 'content_block_delta', index: 1, delta: { type: 'text_delta', text } });
    const start = encodeSseEvent('content_block_stop', { type: 'content_block_stop', index: 0 }) +
      encodeSseEvent('content_block_start', { type: 'content_block_start', index: 1, content_block: { type: 'text', text: '' } });
    assert.equal(out, start + expected(texts[0]!) + expected(texts[1]!));
  });

  it('writes the events every stream has (message start and stop, a text block opened and closed) as the generic encoding would', () => {
    for (const id of [identity, { ...identity, id: 'msg_"q\\', model: 'svc-\u00e9\u2028' }]) {
      const encoder = createMessagesStreamEncoder(id, sealer);
      const out = encoder.start() + encoder.encode({ type: 'text-delta', text: 'hi' }) + encoder.encode({ type: 'finish', reason: 'stop' }) + encoder.end();
      const expected =
        encodeSseEvent('message_start', {
          type: 'message_start',
          message: {
            id: id.id,
            type: 'message',
            role: 'assistant',
            model: id.model,
            content: [],
            stop_reason: null,
            stop_sequence: null,
            usage: { input_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, cache_creation: null, output_tokens: 0, service_tier: 'standard' },
          },
        }) +
        encodeSseEvent('content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }) +
        encodeSseEvent('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'hi' } }) +
        encodeSseEvent('content_block_stop', { type: 'content_block_stop', index: 0 }) +
        encodeSseEvent('message_stop', { type: 'message_stop' });
      assert.equal(out, expected);
    }
  });

  it('writes every event, text deltas of any block included, as the generic encoding of what it carries', () => {
    const textPart = fc.string({ maxLength: 6 }).map((text): StreamPart => ({ type: 'text-delta', text }));
    const other = fc.oneof(
      fc.record({ type: fc.constant('reasoning-delta' as const), text: fc.string({ maxLength: 4 }) }),
      fc.nat(2).map((index): StreamPart => ({ type: 'tool-call-start', index, id: `call_${index}`, name: 'f' })),
      fc.nat(2).map((index): StreamPart => ({ type: 'tool-call-delta', index, argumentsDelta: '{"a":1}' })),
    );
    fc.assert(
      fc.property(fc.array(fc.oneof({ arbitrary: textPart, weight: 3 }, { arbitrary: other, weight: 1 }), { maxLength: 20 }), (parts) => {
        const encoder = createMessagesStreamEncoder(identity, unused);
        let out = encoder.start();
        for (const part of parts) out += encoder.encode(part);
        out += encoder.encode({ type: 'finish', reason: 'stop' });
        out += encoder.encode({ type: 'usage', usage: { inputTokens: 1, cachedInputTokens: 0, outputTokens: 2 }, estimated: false });
        out += encoder.end();
        const events = out.split('\n\n').slice(0, -1).map((e) => e + '\n\n');
        assert.equal(events.join(''), out);
        let open = -1;
        for (const e of events) {
          const [, type, data] = /^event: ([a-z_]+)\ndata: (.*)\n\n$/s.exec(e)!;
          const value = JSON.parse(data!) as { type: string; index?: number };
          assert.equal(e, encodeSseEvent(type!, value));
          if (type === 'content_block_start') open = value.index!;
          if (type === 'content_block_delta') assert.equal(value.index, open);
        }
        const texts = events.filter((e) => e.includes('"text_delta"')).map((e) => (JSON.parse(e.slice(e.indexOf('data: ') + 6)) as { delta: { text: string } }).delta.text);
        assert.deepEqual(texts, parts.flatMap((p) => (p.type === 'text-delta' && p.text !== '' ? [p.text] : [])));
      }),
      { numRuns: 300 },
    );
  });

  it("seals the signature_delta and redacted data: the account's tokens, never the upstream's value; the Anthropic adapter reads them back", async () => {
    const encoder = createMessagesStreamEncoder(identity, sealer);
    let sse = encoder.start();
    sse += encoder.encode({ type: 'reasoning-delta', text: 'First.' });
    sse += encoder.encode({ type: 'reasoning-delta', text: '', signature: 'EqQBupstreamsignature' });
    sse += encoder.encode({ type: 'reasoning-delta', text: '', redacted: 'EmwKAhgBEgy3va3pzix' });
    sse += encoder.encode({ type: 'text-delta', text: 'Hi' });
    sse += encoder.encode({ type: 'finish', reason: 'stop' });
    sse += encoder.encode({ type: 'usage', usage: { inputTokens: 1, cachedInputTokens: 0, outputTokens: 2 }, estimated: false });
    sse += encoder.end();
    for (const s of ['EqQB', 'upstreamsignature', 'EmwK']) assert.ok(!sse.includes(s), s);
    const data = sse.split('\n').filter((l) => l.startsWith('data: ')).map((l) => JSON.parse(l.slice(6)) as { type: string; delta?: { type: string; signature?: string }; content_block?: { type: string; data?: string } });
    const signature = data.find((d) => d.delta?.type === 'signature_delta')!.delta!.signature!;
    const redacted = data.find((d) => d.content_block?.type === 'redacted_thinking')!.content_block!.data!;
    assert.equal(openBlockValue('signature', signature, sealer), 'EqQBupstreamsignature');
    assert.equal(openBlockValue('data', redacted, sealer), 'EmwKAhgBEgy3va3pzix');
    for (const token of [signature, redacted]) {
      for (const decoded of [Buffer.from(token, 'base64url').toString('latin1'), Buffer.from(token, 'base64').toString('latin1')]) {
        for (const s of ['EqQB', 'upstreamsignature', 'EmwK']) assert.ok(!decoded.includes(s), s);
      }
    }
    // What a client reading this stream keeps is what the service opens again.
    const back = [];
    for await (const e of parseAnthropicStream(events(sse), null, () => 'call_x')) back.push(e);
    assert.deepEqual(back.filter((e) => e.type === 'reasoning-delta' && (e.signature !== undefined || e.redacted !== undefined)), [
      { type: 'reasoning-delta', text: '', signature },
      { type: 'reasoning-delta', text: '', redacted },
    ]);
  });
});

describe('anthropicErrorType', () => {
  it("names each status the service answers with the Messages API's type for it", () => {
    const types = Object.fromEntries([400, 401, 402, 403, 404, 413, 415, 429, 500, 502, 503, 504, 529].map((s) => [s, anthropicErrorType(s)]));
    assert.deepEqual(types, {
      400: 'invalid_request_error',
      401: 'authentication_error',
      402: 'billing_error',
      403: 'permission_error',
      404: 'not_found_error',
      413: 'request_too_large',
      415: 'invalid_request_error',
      429: 'rate_limit_error',
      500: 'api_error',
      502: 'api_error',
      503: 'overloaded_error',
      504: 'timeout_error',
      529: 'overloaded_error',
    });
  });
});
