import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { createReasoningSealers } from '../../reasoning-sealer.ts';
import type { TextRun } from '../../canonical/text-run.ts';
import { decodeReasoningContent } from '../reasoning-content.ts';
import { ResponseRecorder, type ResponseShell } from './response-recorder.ts';

const sealer = createReasoningSealers(randomBytes(32))(1);

const shell: ResponseShell = {
  id: 'resp_test', createdAt: 1, model: 'svc-fast', instructions: null, previousResponseId: null, store: true, tools: [], toolChoice: 'auto',
  parallelToolCalls: true, temperature: null, topP: null, maxOutputTokens: null, text: { format: { type: 'text' } }, reasoningEffort: null,
  metadata: null, truncation: 'disabled', user: null, safetyIdentifier: null, maxToolCalls: null, promptCacheKey: null, topLogprobs: 0,
};
const usage = { inputTokens: 10, cachedInputTokens: 2, outputTokens: 5, reasoningTokens: 0 };

function events(sse: string): { event: string; data: Record<string, unknown> }[] {
  return sse.trim().split('\n\n').map((block) => {
    const [e, d] = block.split('\n');
    return { event: e!.slice('event: '.length), data: JSON.parse(d!.slice('data: '.length)) };
  });
}

/** Upstream-style events around each JSON literal, as a run (literals' offsets, quotes included). */
function runOf(literals: readonly string[]): TextRun {
  let text = '';
  const at: number[] = [];
  for (const l of literals) {
    text += 'data: {"d":';
    at.push(text.length, text.length + l.length);
    text += `${l}}\n\n`;
  }
  return { text, literals: at, ascii: false };
}

/** A streamed answer of reasoning then text, the text given as runs when `asRuns`. */
function recordText(asRuns: boolean, literals: readonly string[][], streaming = true) {
  const r = new ResponseRecorder(shell, streaming, { sealer });
  r.start();
  r.beginRound(() => ({ kind: 'function' }));
  r.part({ type: 'reasoning-delta', text: 'hm' });
  for (const group of literals) {
    if (asRuns) r.run(runOf(group));
    else for (const l of group) r.part({ type: 'text-delta', text: JSON.parse(l) as string });
  }
  r.endRound();
  const final = r.finish('completed', usage) as { output: { id: string }[] };
  const ids = final.output.map((o) => o.id);
  // Item ids are random: name them by position so two recordings compare.
  const named = (t: string) => ids.reduce((acc, id, i) => acc.replaceAll(id, `item_${i}`), t);
  return { sse: named(r.drain()), final: JSON.parse(named(JSON.stringify(final))) as unknown };
}

describe('ResponseRecorder', () => {
  it('a refusal between texts is a message of its own: text closes before it, text after it opens another', () => {
    const r = new ResponseRecorder(shell, true, { sealer });
    r.start();
    r.beginRound(() => ({ kind: 'function' }));
    r.part({ type: 'text-delta', text: 'Well.' });
    r.part({ type: 'refusal-delta', text: 'No, ' });
    r.part({ type: 'refusal-delta', text: 'sorry.' });
    r.part({ type: 'text-delta', text: 'Anything else?' });
    r.endRound();
    const final = r.finish('completed', usage) as { output: { content: unknown[]; status: string }[] };
    assert.deepEqual(final.output.map((o) => [o.content, o.status]), [
      [[{ type: 'output_text', text: 'Well.', annotations: [], logprobs: [] }], 'completed'],
      [[{ type: 'refusal', refusal: 'No, sorry.' }], 'completed'],
      [[{ type: 'output_text', text: 'Anything else?', annotations: [], logprobs: [] }], 'completed'],
    ]);
    const refusalEvents = events(r.drain()).filter((e) => e.data.output_index === 1).map((e) => [e.event, e.data.delta ?? e.data.refusal ?? e.data.part]);
    assert.deepEqual(refusalEvents.slice(1, -1), [
      ['response.content_part.added', { type: 'refusal', refusal: '' }],
      ['response.refusal.delta', 'No, '],
      ['response.refusal.delta', 'sorry.'],
      ['response.refusal.done', 'No, sorry.'],
      ['response.content_part.done', { type: 'refusal', refusal: 'No, sorry.' }],
    ]);
  });

  it('records a text run as the same events and response as its deltas one by one', () => {
    const groups = [['"Hel"', '"lo"'], ['" wor"', '"ld"', '"!"']];
    const byRuns = recordText(true, groups);
    const byParts = recordText(false, groups);
    assert.equal(byRuns.sse, byParts.sse, 'byte for byte');
    assert.deepEqual(byRuns.final, byParts.final);
    assert.equal((byRuns.final as { output: { content?: { text: string }[] }[] }).output[1]!.content![0]!.text, 'Hello world!');
    const unstreamed = [recordText(true, groups, false), recordText(false, groups, false)];
    assert.equal(unstreamed[0]!.sse, '');
    assert.deepEqual(unstreamed[0]!.final, unstreamed[1]!.final);
  });

  it("passes a run's escaped literals on as they came, the same text when parsed", () => {
    // The first delta opens the message item and is serialized; the others pass as they came.
    const groups = [['"A "', '"caf\\u00e9 "', '"\\"q\\"\\n"', '"\\/"']];
    const byRuns = recordText(true, groups);
    const byParts = recordText(false, groups);
    assert.ok(byRuns.sse.includes('"delta":"caf\\u00e9 "'), 'the literal as it came');
    assert.deepEqual(events(byRuns.sse), events(byParts.sse));
    assert.deepEqual(byRuns.final, byParts.final);
  });

  it('streams text and a function call with added events before deltas, sequence numbers and one id', () => {
    const r = new ResponseRecorder(shell, true, { sealer });
    r.start();
    r.beginRound(() => ({ kind: 'function' }));
    r.part({ type: 'reasoning-delta', text: 'thi' });
    r.part({ type: 'reasoning-delta', text: 'nk' });
    r.part({ type: 'text-delta', text: 'Hel' });
    r.part({ type: 'text-delta', text: 'lo' });
    r.part({ type: 'tool-call-start', index: 0, id: 'call_1', name: 'f' });
    r.part({ type: 'tool-call-delta', index: 0, argumentsDelta: '{"a"' });
    r.part({ type: 'tool-call-delta', index: 0, argumentsDelta: ':1}' });
    r.part({ type: 'finish', reason: 'tool_calls' });
    assert.deepEqual(r.endRound(), { functionCalls: 1, mcpCalls: [] });
    const final = r.finish('completed', usage) as { id: string; output: { type: string }[]; usage: unknown };
    const list = events(r.drain());
    assert.deepEqual(list.map((e) => e.event), [
      'response.created', 'response.in_progress',
      'response.output_item.added', 'response.reasoning_summary_part.added', 'response.content_part.added',
      'response.reasoning_summary_text.delta', 'response.reasoning_text.delta', 'response.reasoning_summary_text.delta', 'response.reasoning_text.delta',
      'response.reasoning_summary_text.done', 'response.reasoning_summary_part.done', 'response.reasoning_text.done', 'response.content_part.done', 'response.output_item.done',
      'response.output_item.added', 'response.content_part.added', 'response.output_text.delta', 'response.output_text.delta', 'response.output_text.done', 'response.content_part.done', 'response.output_item.done',
      'response.output_item.added', 'response.function_call_arguments.delta', 'response.function_call_arguments.delta', 'response.function_call_arguments.done', 'response.output_item.done',
      'response.completed',
    ]);
    list.forEach((e, i) => {
      assert.equal(e.data.type, e.event);
      assert.equal(e.data.sequence_number, i);
    });
    assert.equal((list[0]!.data.response as { id: string }).id, 'resp_test');
    assert.equal((list.at(-1)!.data.response as { id: string }).id, 'resp_test');
    assert.deepEqual(final.output.map((o) => o.type), ['reasoning', 'message', 'function_call']);
    // The reasoning item: the text as its summary and as its reasoning_text content, the events
    // naming the summary and content indexes their added events opened.
    const rs = final.output[0] as unknown as { id: string; summary: unknown; content: unknown };
    assert.deepEqual(rs.summary, [{ type: 'summary_text', text: 'think' }]);
    assert.deepEqual(rs.content, [{ type: 'reasoning_text', text: 'think' }]);
    const added = list.find((e) => e.event === 'response.output_item.added')!.data.item as { summary: unknown };
    assert.deepEqual(added.summary, [], 'the item is announced empty');
    const partAdded = list.find((e) => e.event === 'response.reasoning_summary_part.added')!.data;
    assert.deepEqual(partAdded, { type: 'response.reasoning_summary_part.added', sequence_number: 3, item_id: rs.id, output_index: 0, summary_index: 0, part: { type: 'summary_text', text: '' } });
    const summaryDeltas = list.filter((e) => e.event === 'response.reasoning_summary_text.delta').map((e) => [e.data.summary_index, e.data.delta]);
    assert.deepEqual(summaryDeltas, [[0, 'thi'], [0, 'nk']]);
    assert.equal(list.find((e) => e.event === 'response.reasoning_summary_text.done')!.data.text, 'think');
    assert.deepEqual(list.find((e) => e.event === 'response.reasoning_summary_part.done')!.data.part, { type: 'summary_text', text: 'think' });
    assert.deepEqual(final.usage, { input_tokens: 10, input_tokens_details: { cached_tokens: 2 }, output_tokens: 5, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 15 });
    assert.equal(list.some((e) => 'error' in e.data), false, 'no event has a top-level error key (the SDK would throw)');
  });

  it('streams a custom tool call as custom_tool_call_input deltas of the decoded text, ending in the whole input', () => {
    const r = new ResponseRecorder(shell, true, { sealer });
    r.start();
    r.beginRound((name) => (name === 'shell' ? { kind: 'custom' } : { kind: 'function' }));
    r.part({ type: 'tool-call-start', index: 0, id: 'call_1', name: 'shell' });
    for (const piece of ['{"in', 'put": "ls', ' -la\\n', 'echo \\"', 'hi\\""}']) r.part({ type: 'tool-call-delta', index: 0, argumentsDelta: piece });
    // A second call whose arguments are not the expected JSON: its text is sent whole at its end.
    r.part({ type: 'tool-call-start', index: 1, id: 'call_2', name: 'shell' });
    r.part({ type: 'tool-call-delta', index: 1, argumentsDelta: 'pwd' });
    assert.deepEqual(r.endRound(), { functionCalls: 2, mcpCalls: [] });
    const final = r.finish('completed', usage) as { output: Record<string, unknown>[] };
    const list = events(r.drain()).slice(2, -1);
    assert.deepEqual(list.map((e) => e.event), [
      'response.output_item.added', 'response.custom_tool_call_input.delta', 'response.custom_tool_call_input.delta', 'response.custom_tool_call_input.delta', 'response.custom_tool_call_input.delta',
      'response.output_item.added',
      'response.custom_tool_call_input.done', 'response.output_item.done',
      'response.custom_tool_call_input.delta', 'response.custom_tool_call_input.done', 'response.output_item.done',
    ]);
    const first = final.output[0]!;
    assert.match(String(first.id), /^ctc_[A-Za-z0-9]{24}$/);
    assert.deepEqual({ ...first, id: '' }, { id: '', type: 'custom_tool_call', status: 'completed', call_id: 'call_1', name: 'shell', input: 'ls -la\necho "hi"' });
    const deltas = list.filter((e) => e.event === 'response.custom_tool_call_input.delta' && e.data.item_id === first.id).map((e) => e.data.delta);
    assert.deepEqual(deltas, ['ls', ' -la\n', 'echo "', 'hi"']);
    assert.deepEqual(list[6]!.data, { type: 'response.custom_tool_call_input.done', sequence_number: 2 + 6, item_id: first.id, output_index: 0, input: 'ls -la\necho "hi"' });
    assert.equal(final.output[1]!.input, 'pwd');
    assert.deepEqual(list[8]!.data.delta, 'pwd');
    assert.equal((list[0]!.data.item as { input: string }).input, '', 'the item is announced empty');
  });

  it('marks a custom tool call cut by the output cap incomplete, as a function call is', () => {
    const r = new ResponseRecorder(shell, false, { sealer });
    r.start();
    r.beginRound((name) => (name === 'shell' ? { kind: 'custom' } : { kind: 'function' }));
    r.part({ type: 'tool-call-start', index: 0, id: 'call_1', name: 'shell' });
    r.part({ type: 'tool-call-delta', index: 0, argumentsDelta: '{"input": "ls' });
    const final = r.finish('incomplete', usage, { incompleteReason: 'max_output_tokens' }) as { output: Record<string, unknown>[] };
    assert.equal(final.output[0]!.type, 'custom_tool_call');
    assert.equal(final.output[0]!.status, 'incomplete');
  });

  it('keeps MCP calls for the gateway, and records their outcome as mcp_call items', () => {
    const r = new ResponseRecorder(shell, false, { sealer });
    r.start();
    r.beginRound((name) => (name === 'add' ? { kind: 'mcp', serverLabel: 'math', tool: 'add' } : { kind: 'function' }));
    r.part({ type: 'tool-call-start', index: 0, id: 'call_1', name: 'add' });
    r.part({ type: 'tool-call-delta', index: 0, argumentsDelta: '{"a":1,"b":2}' });
    const round = r.endRound();
    assert.deepEqual(round, { functionCalls: 0, mcpCalls: [{ serverLabel: 'math', tool: 'add', arguments: '{"a":1,"b":2}' }] });
    const at = r.mcpCallStarted(round.mcpCalls[0]!, null);
    r.mcpCallEnded(at, { error: 'timed out' });
    assert.equal(r.drain(), '', 'a non-streamed response has no events');
    const out = (r.finish('completed', usage) as { output: Record<string, unknown>[] }).output;
    assert.equal(out[0]!.type, 'mcp_call');
    assert.equal(out[0]!.status, 'failed');
    assert.equal(out[0]!.error, 'timed out');
  });

  /** Anthropic's thinking (two signed blocks and a redacted one) then text, as parts. */
  function anthropicTurn(r: ResponseRecorder): void {
    r.start();
    r.beginRound(() => ({ kind: 'function' }));
    r.part({ type: 'reasoning-delta', text: 'First' });
    r.part({ type: 'reasoning-delta', text: ' thought.', signature: 'sig-1' });
    r.part({ type: 'reasoning-delta', text: '', redacted: 'opaque-data' });
    r.part({ type: 'reasoning-delta', text: 'Second.' });
    r.part({ type: 'reasoning-delta', text: '', signature: 'sig-2' });
    r.part({ type: 'text-delta', text: 'Answer.' });
    r.part({ type: 'finish', reason: 'stop' });
    r.endRound();
  }

  it("keeps the upstream's signed and redacted reasoning blocks as the item's encrypted_content, shown only when asked for", () => {
    for (const encryptedReasoning of [false, true]) {
      const r = new ResponseRecorder(shell, true, { sealer, encryptedReasoning });
      anthropicTurn(r);
      const final = r.finish('completed', usage) as { output: Record<string, unknown>[] };
      const list = events(r.drain());
      // The recorded item (what is stored) always has the blocks, in order, signatures closing them.
      const stored = r.output[0] as { type: string; encrypted_content?: string; summary: unknown };
      assert.equal(stored.type, 'reasoning');
      assert.deepEqual(decodeReasoningContent(stored.encrypted_content!, sealer), [
        { type: 'thinking', thinking: 'First thought.', signature: 'sig-1' },
        { type: 'redacted_thinking', data: 'opaque-data' },
        { type: 'thinking', thinking: 'Second.', signature: 'sig-2' },
      ]);
      assert.deepEqual(stored.summary, [{ type: 'summary_text', text: 'First thought.Second.' }]);
      // Sealed: nothing of the upstream's signatures or data in what a client may see.
      for (const s of ['sig-1', 'sig-2', 'opaque-data']) assert.ok(!JSON.stringify(final).includes(s) && !list.some((e) => JSON.stringify(e).includes(s)), s);
      const done = list.find((e) => e.event === 'response.output_item.done')!.data.item as Record<string, unknown>;
      const added = list.find((e) => e.event === 'response.output_item.added')!.data.item as Record<string, unknown>;
      if (encryptedReasoning) {
        assert.equal(final.output[0]!.encrypted_content, stored.encrypted_content);
        assert.equal(done.encrypted_content, stored.encrypted_content);
        assert.equal(added.encrypted_content, null, 'not known when the item is announced');
      } else {
        assert.equal('encrypted_content' in final.output[0]!, false);
        assert.equal('encrypted_content' in done, false);
        assert.equal('encrypted_content' in added, false);
      }
      const deltas = list.filter((e) => e.event === 'response.reasoning_summary_text.delta').map((e) => e.data.delta);
      assert.deepEqual(deltas, ['First', ' thought.', 'Second.']);
    }
  });

  it('a reasoning item of redacted thinking alone has no summary part, and reasoning without signatures no encrypted_content', () => {
    const r = new ResponseRecorder(shell, true, { sealer, encryptedReasoning: true });
    r.start();
    r.beginRound(() => ({ kind: 'function' }));
    r.part({ type: 'reasoning-delta', text: '', redacted: 'opaque-data' });
    r.part({ type: 'text-delta', text: 'Answer.' });
    r.endRound();
    r.beginRound(() => ({ kind: 'function' }));
    r.part({ type: 'reasoning-delta', text: 'unsigned' });
    r.part({ type: 'text-delta', text: 'More.' });
    r.endRound();
    const final = r.finish('completed', usage) as { output: Record<string, unknown>[] };
    const types = events(r.drain()).map((e) => e.event);
    assert.deepEqual(types.slice(2, 4), ['response.output_item.added', 'response.output_item.done'], 'no parts for redacted thinking');
    assert.deepEqual(final.output[0]!.summary, []);
    assert.deepEqual(decodeReasoningContent(final.output[0]!.encrypted_content as string, sealer), [{ type: 'redacted_thinking', data: 'opaque-data' }]);
    assert.deepEqual(final.output[2]!.summary, [{ type: 'summary_text', text: 'unsigned' }]);
    assert.equal(final.output[2]!.encrypted_content, null);
  });
});
