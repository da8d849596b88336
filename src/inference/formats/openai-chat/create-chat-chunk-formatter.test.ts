import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import type { StreamPart } from '../../canonical/chat.ts';
import { createReasoningSealers } from '../../reasoning-sealer.ts';
import { decodeReasoningContent } from '../reasoning-content.ts';
import { encodeSseData } from '../sse.ts';
import { createChatChunkFormatter, createChatStreamEncoder } from './create-chat-chunk-formatter.ts';
import { readReasoningDetails } from './reasoning-details.ts';

const sealer = createReasoningSealers(randomBytes(32))(1);
const identity = { id: 'chatcmpl-abc', model: 'svc-fast', created: 1700000000 };
const base = { ...identity, sealer };
const parts: StreamPart[] = [
  { type: 'reasoning-delta', text: 'hmm' },
  { type: 'text-delta', text: 'Hel' },
  { type: 'text-delta', text: '' },
  { type: 'text-delta', text: 'lo' },
  { type: 'tool-call-start', index: 0, id: 'call_a', name: 'get' },
  { type: 'tool-call-delta', index: 0, argumentsDelta: '{"x"' },
  { type: 'tool-call-start', index: 1, id: 'call_b', name: 'put' },
  { type: 'tool-call-delta', index: 0, argumentsDelta: ':1}' },
  { type: 'tool-call-delta', index: 1, argumentsDelta: '{}' },
  { type: 'finish', reason: 'tool_calls' },
  { type: 'usage', usage: { inputTokens: 10, cachedInputTokens: 2, outputTokens: 7 }, estimated: false },
];

describe('createChatChunkFormatter', () => {
  it('streams a refusal as delta.refusal, opening without content when it comes first; the encoder does the same', () => {
    const refusal: StreamPart[] = [
      { type: 'refusal-delta', text: 'No' },
      { type: 'refusal-delta', text: '' },
      { type: 'refusal-delta', text: ', sorry.' },
      { type: 'finish', reason: 'stop' },
    ];
    const deltas = (chunks: object[]) => (chunks as { choices: { delta: unknown; finish_reason: unknown }[] }[]).map((c) => [c.choices[0]!.delta, c.choices[0]!.finish_reason]);
    const f = createChatChunkFormatter({ ...base, includeUsage: false });
    const expected = [
      [{ role: 'assistant', content: null, refusal: '' }, null],
      [{ refusal: 'No' }, null],
      [{ refusal: ', sorry.' }, null],
      [{}, 'stop'],
    ];
    assert.deepEqual(deltas(refusal.flatMap((p) => f.format(p))), expected);
    const encoder = createChatStreamEncoder({ ...base, includeUsage: false });
    const sse = refusal.map((p) => encoder.encode(p)).join('');
    assert.deepEqual(deltas(sse.trim().split('\n\n').map((l) => JSON.parse(l.slice('data: '.length)) as object)), expected);
    const afterText = createChatChunkFormatter({ ...base, includeUsage: false });
    assert.deepEqual(deltas([{ type: 'text-delta', text: 'Hm.' } as const, refusal[0]!].flatMap((p) => afterText.format(p))), [
      [{ role: 'assistant', content: '' }, null],
      [{ content: 'Hm.' }, null],
      [{ refusal: 'No' }, null],
    ]);
  });

  it('emits OpenAI chunks: role first, reasoning, content, tool-call deltas by index, finish', () => {
    const f = createChatChunkFormatter({ ...base, includeUsage: false });
    const chunks = parts.flatMap((p) => f.format(p)) as { choices: { delta: unknown; finish_reason: unknown }[] }[];
    assert.deepEqual(
      chunks.map((c) => [c.choices[0]!.delta, c.choices[0]!.finish_reason]),
      [
        [{ role: 'assistant', content: '' }, null],
        [{ reasoning: 'hmm', reasoning_details: [{ type: 'reasoning.text', text: 'hmm', format: 'svc-reasoning-v1', index: 0 }] }, null],
        [{ content: 'Hel' }, null],
        [{ content: 'lo' }, null],
        [{ tool_calls: [{ index: 0, id: 'call_a', type: 'function', function: { name: 'get', arguments: '' } }] }, null],
        [{ tool_calls: [{ index: 0, function: { arguments: '{"x"' } }] }, null],
        [{ tool_calls: [{ index: 1, id: 'call_b', type: 'function', function: { name: 'put', arguments: '' } }] }, null],
        [{ tool_calls: [{ index: 0, function: { arguments: ':1}' } }] }, null],
        [{ tool_calls: [{ index: 1, function: { arguments: '{}' } }] }, null],
        [{}, 'tool_calls'],
      ],
    );
    assert.deepEqual(Object.keys(chunks[0]!), ['id', 'object', 'created', 'model', 'choices']);
    assert.deepEqual({ ...chunks[0], choices: undefined }, { ...identity, object: 'chat.completion.chunk', choices: undefined });
  });

  it('with include_usage: usage null on every chunk, then a usage chunk with no choices', () => {
    const f = createChatChunkFormatter({ ...base, includeUsage: true });
    const chunks = parts.flatMap((p) => f.format(p)) as { usage: unknown; choices: unknown[] }[];
    assert.ok(chunks.slice(0, -1).every((c) => c.usage === null));
    assert.deepEqual(chunks.at(-1), {
      ...identity,
      object: 'chat.completion.chunk',
      choices: [],
      usage: { prompt_tokens: 10, completion_tokens: 7, total_tokens: 17, prompt_tokens_details: { cached_tokens: 2 }, completion_tokens_details: { reasoning_tokens: 0 } },
    });
  });

  /** Anthropic's thinking as parts: a signed block in pieces, a redacted block, a second signed block. */
  const anthropicParts: StreamPart[] = [
    { type: 'reasoning-delta', text: 'First' },
    { type: 'reasoning-delta', text: ' thought.' },
    { type: 'reasoning-delta', text: '', signature: 'EqQBsig-1' },
    { type: 'reasoning-delta', text: '', redacted: 'EmwKopaque' },
    { type: 'reasoning-delta', text: 'Second.' },
    { type: 'reasoning-delta', text: '', signature: 'EqQBsig-2' },
    { type: 'tool-call-start', index: 0, id: 'call_a', name: 'get' },
    { type: 'tool-call-delta', index: 0, argumentsDelta: '{}' },
    { type: 'finish', reason: 'tool_calls' },
  ];
  const blocks = [
    { type: 'thinking', thinking: 'First thought.', signature: 'EqQBsig-1' },
    { type: 'redacted_thinking', data: 'EmwKopaque' },
    { type: 'thinking', thinking: 'Second.', signature: 'EqQBsig-2' },
  ];

  it("streams thinking as reasoning deltas and reasoning_details by block index; a block's signature (sealed, the block inside) closes it", () => {
    const f = createChatChunkFormatter({ ...base, includeUsage: false });
    const deltas = anthropicParts.flatMap((p) => f.format(p)).map((c) => (c as { choices: { delta: Record<string, unknown> }[] }).choices[0]!.delta);
    const reasoning = deltas.filter((d) => 'reasoning_details' in d) as { reasoning?: string; reasoning_details: Record<string, unknown>[] }[];
    assert.deepEqual(reasoning.map((d) => d.reasoning), ['First', ' thought.', undefined, undefined, 'Second.', undefined]);
    const details = reasoning.flatMap((d) => d.reasoning_details);
    assert.deepEqual(
      details.map((d) => ({ ...d, ...('signature' in d ? { signature: '<sealed>' } : {}), ...('data' in d ? { data: '<sealed>' } : {}) })),
      [
        { type: 'reasoning.text', text: 'First', format: 'svc-reasoning-v1', index: 0 },
        { type: 'reasoning.text', text: ' thought.', format: 'svc-reasoning-v1', index: 0 },
        { type: 'reasoning.text', text: '', signature: '<sealed>', format: 'svc-reasoning-v1', index: 0 },
        { type: 'reasoning.encrypted', data: '<sealed>', format: 'svc-reasoning-v1', index: 1 },
        { type: 'reasoning.text', text: 'Second.', format: 'svc-reasoning-v1', index: 2 },
        { type: 'reasoning.text', text: '', signature: '<sealed>', format: 'svc-reasoning-v1', index: 2 },
      ],
    );
    assert.deepEqual(decodeReasoningContent(details[2]!.signature as string, sealer), [blocks[0]]);
    assert.deepEqual(decodeReasoningContent(details[3]!.data as string, sealer), [blocks[1]]);
    assert.deepEqual(decodeReasoningContent(details[5]!.signature as string, sealer), [blocks[2]]);
    for (const raw of ['EqQB', 'EmwK']) assert.ok(!JSON.stringify(deltas).includes(raw), raw);
    // Sent back as a client collects them (every entry, or only those with a token), the blocks return whole.
    assert.deepEqual(readReasoningDetails(details, 'reasoning_details', sealer), blocks);
    assert.deepEqual(readReasoningDetails(details.filter((d) => d.signature ?? d.data), 'reasoning_details', sealer), blocks);
  });

  it("an unsigned block (an OpenAI-compatible upstream's reasoning) has text entries only, and the next text stays in it", () => {
    const f = createChatChunkFormatter({ ...base, includeUsage: false });
    const details = [{ type: 'reasoning-delta', text: 'a' }, { type: 'reasoning-delta', text: 'b' }, { type: 'text-delta', text: 'x' }]
      .flatMap((p) => f.format(p as StreamPart))
      .flatMap((c) => ((c as { choices: { delta: { reasoning_details?: unknown[] } }[] }).choices[0]!.delta.reasoning_details ?? []));
    assert.deepEqual(details, [
      { type: 'reasoning.text', text: 'a', format: 'svc-reasoning-v1', index: 0 },
      { type: 'reasoning.text', text: 'b', format: 'svc-reasoning-v1', index: 0 },
    ]);
  });

  it('opens with the role chunk even when the first part is the finish', () => {
    const f = createChatChunkFormatter({ ...base, includeUsage: false });
    assert.equal(f.format({ type: 'finish', reason: 'length' }).length, 2);
  });
});

describe('createChatStreamEncoder', () => {
  it('writes text chunks from its template exactly as the formatter would', () => {
    const parts: StreamPart[] = [
      { type: 'reasoning-delta', text: 'thinking' },
      { type: 'text-delta', text: '' },
      { type: 'text-delta', text: 'Hello' },
      { type: 'text-delta', text: ' "quoted" \\ \n é \u2028 </script>' },
      { type: 'tool-call-start', index: 0, id: 'call_1', name: 'f' },
      { type: 'tool-call-delta', index: 0, argumentsDelta: '{}' },
      { type: 'text-delta', text: 'after' },
      { type: 'finish', reason: 'stop' },
      { type: 'usage', usage: { inputTokens: 1, cachedInputTokens: 0, outputTokens: 2 }, estimated: false },
    ];
    // Every order in which the opening chunk can come: reasoning, text, a tool call or the finish first.
    const orders = [parts, parts.slice(1), parts.slice(4), [parts[7]!, parts[8]!]];
    for (const includeUsage of [false, true]) {
      for (const [id, model] of [['chatcmpl-1', 'svc-x'], ['chatcmpl-"q\\', 'svc-\u00e9\u2028']] as const) {
        for (const order of orders) {
          const options = { id, model, created: 1700000123, includeUsage, sealer };
          const encoder = createChatStreamEncoder(options);
          const formatter = createChatChunkFormatter(options);
          for (const part of order) assert.equal(encoder.encode(part), formatter.format(part).map(encodeSseData).join(''));
        }
      }
    }
  });

  it('writes a run of text events as the formatter writes their texts, with the opening chunk when it comes first', () => {
    const text = 'data: {"c":"Hel"}\n\ndata: {"c":"lo \\u00e9"}\n\n';
    const literal = (from: number) => [text.indexOf(':"', from) + 1, text.indexOf('"}', from) + 1] as const;
    const run = { text, literals: [...literal(0), ...literal(text.indexOf('\n\n'))], ascii: false };
    for (const includeUsage of [false, true]) {
      const options = { id: 'chatcmpl-1', model: 'svc-x', created: 1, includeUsage, sealer };
      const encoder = createChatStreamEncoder(options);
      const formatter = createChatChunkFormatter(options);
      const expected = [...formatter.format({ type: 'text-delta', text: 'Hel' }), ...formatter.format({ type: 'text-delta', text: 'lo é' })];
      const written = encoder.encodeRun!(run);
      // The upstream's literal goes as it came (its escape kept): the same chunks once parsed.
      const events = written.split('\n\n').filter(Boolean);
      assert.deepEqual(events.map((e) => JSON.parse(e.slice('data: '.length)) as unknown), expected);
      assert.ok(written.includes('"lo \\u00e9"'));
      assert.equal(encoder.encode({ type: 'text-delta', text: '!' }), formatter.format({ type: 'text-delta', text: '!' }).map(encodeSseData).join(''));
    }
  });
});
