import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import type { ReasoningBlock } from '../../canonical/chat.ts';
import { createReasoningSealers } from '../../reasoning-sealer.ts';
import { encodeReasoningContent } from '../reasoning-content.ts';
import type { ConversationItem } from './response-items.ts';
import { toCanonicalMessages } from './to-canonical-messages.ts';

const plain = (_label: string, tool: string) => tool;
const sealers = createReasoningSealers(randomBytes(32));
const sealer = sealers(1);
const seal = (blocks: ReasoningBlock[]) => encodeReasoningContent(blocks, sealer);

describe('toCanonicalMessages', () => {
  it('puts instructions first and joins a turn’s text and tool calls into one assistant message', () => {
    const items: ConversationItem[] = [
      { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'q' }, { type: 'input_image', image_url: 'https://x/a.png', detail: 'auto' }] },
      { type: 'message', role: 'assistant', id: 'msg_1', status: 'completed', content: [{ type: 'output_text', text: 'let me see', annotations: [] }] },
      { type: 'function_call', call_id: 'c1', name: 'f', arguments: '{}' },
      { type: 'mcp_call', id: 'mcp_1', status: 'completed', server_label: 's', name: 'add', arguments: '{"a":1}', output: '2', error: null, approval_request_id: null },
      { type: 'function_call_output', call_id: 'c1', output: 'F' },
    ];
    assert.deepEqual(toCanonicalMessages('Be brief.', items, plain, sealer), [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: [{ type: 'text', text: 'q' }, { type: 'image', url: 'https://x/a.png', detail: 'auto' }] },
      { role: 'assistant', content: 'let me see', toolCalls: [{ id: 'c1', name: 'f', arguments: '{}' }, { id: 'mcp_1', name: 'add', arguments: '{"a":1}' }] },
      { role: 'tool', toolCallId: 'mcp_1', content: '2' },
      { role: 'tool', toolCallId: 'c1', content: 'F' },
    ]);
  });

  it('skips listings and pending approvals; a refused approval is a call answered by the refusal; errors are results', () => {
    const items: ConversationItem[] = [
      { type: 'mcp_list_tools', id: 'mcpl_1', server_label: 's', tools: [], error: null },
      { type: 'mcp_approval_request', id: 'mcpr_1', server_label: 's', name: 'add', arguments: '{}' },
      { type: 'mcp_approval_response', approval_request_id: 'mcpr_1', approve: false, reason: 'too risky' },
      { type: 'mcp_call', id: 'mcp_2', status: 'failed', server_label: 's', name: 'mul', arguments: '{}', output: null, error: 'timed out', approval_request_id: null },
    ];
    assert.deepEqual(toCanonicalMessages(null, items, (l, t) => `${l}__${t}`, sealer), [
      { role: 'assistant', content: '', toolCalls: [{ id: 'mcpr_1', name: 's__add', arguments: '{}' }] },
      { role: 'tool', toolCallId: 'mcpr_1', content: 'The user did not approve this tool call: too risky' },
      { role: 'assistant', content: '', toolCalls: [{ id: 'mcp_2', name: 's__mul', arguments: '{}' }] },
      { role: 'tool', toolCallId: 'mcp_2', content: 'Error: timed out' },
    ]);
  });

  it("sends a reasoning item's blocks (encrypted_content) first in the turn they belong to; reasoning without them is not sent", () => {
    const signed = { type: 'thinking' as const, thinking: 'Look it up.', signature: 'sig-1' };
    const redacted = { type: 'redacted_thinking' as const, data: 'opaque' };
    const second = { type: 'thinking' as const, thinking: 'Now answer.', signature: 'sig-2' };
    const items: ConversationItem[] = [
      { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Weather?' }] },
      { type: 'reasoning', id: 'rs_1', summary: [{ type: 'summary_text', text: 'Look it up.' }], encrypted_content: seal([signed, redacted]) },
      { type: 'function_call', call_id: 'c1', name: 'weather', arguments: '{}' },
      { type: 'function_call_output', call_id: 'c1', output: 'sunny' },
      { type: 'reasoning', id: 'rs_2', summary: [], content: [{ type: 'reasoning_text', text: 'plain' }] },
      { type: 'reasoning', id: 'rs_3', summary: [], encrypted_content: seal([second]) },
      { type: 'mcp_call', id: 'mcp_1', status: 'completed', server_label: 's', name: 'add', arguments: '{}', output: '2', error: null, approval_request_id: null },
      { type: 'reasoning', id: 'rs_4', summary: [], encrypted_content: seal([signed]) },
      { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Sunny.', annotations: [] }] },
      { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Thanks' }] },
      { type: 'reasoning', id: 'rs_5', summary: [], encrypted_content: seal([second]) },
    ];
    assert.deepEqual(toCanonicalMessages(null, items, plain, sealer), [
      { role: 'user', content: [{ type: 'text', text: 'Weather?' }] },
      { role: 'assistant', content: '', toolCalls: [{ id: 'c1', name: 'weather', arguments: '{}' }], reasoning: [signed, redacted] },
      { role: 'tool', toolCallId: 'c1', content: 'sunny' },
      { role: 'assistant', content: '', toolCalls: [{ id: 'mcp_1', name: 'add', arguments: '{}' }], reasoning: [second] },
      { role: 'tool', toolCallId: 'mcp_1', content: '2' },
      { role: 'assistant', content: 'Sunny.', toolCalls: [], reasoning: [signed] },
      { role: 'user', content: [{ type: 'text', text: 'Thanks' }] },
      // Reasoning alone (an answer cut short) is no turn.
      { role: 'assistant', content: '', toolCalls: [] },
    ]);
  });

  it('sends nothing for a stored token that does not open (sealed under another key, or for another account): the turn goes without its blocks', () => {
    const signed = { type: 'thinking' as const, thinking: 'Look it up.', signature: 'sig-1' };
    const items = (content: string | null): ConversationItem[] => [
      { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Weather?' }] },
      { type: 'reasoning', id: 'rs_1', summary: [], encrypted_content: content },
      { type: 'function_call', call_id: 'c1', name: 'weather', arguments: '{}' },
    ];
    for (const content of [encodeReasoningContent([signed], createReasoningSealers(randomBytes(32))(1)), encodeReasoningContent([signed], sealers(2))]) {
      assert.deepEqual(toCanonicalMessages(null, items(content), plain, sealer)[1], { role: 'assistant', content: '', toolCalls: [{ id: 'c1', name: 'weather', arguments: '{}' }] });
    }
  });
});
