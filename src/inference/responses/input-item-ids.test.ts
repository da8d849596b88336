import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ConversationItem } from '../formats/openai-responses/response-items.ts';
import { withItemIds } from './input-item-ids.ts';

describe('withItemIds', () => {
  it('gives each item without an id (or with an empty one) an id of its type, and keeps the ids given', () => {
    const items: ConversationItem[] = [
      { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'hi' }] },
      { type: 'function_call', id: 'fc_given', call_id: 'c1', name: 'f', arguments: '{}' },
      { type: 'function_call_output', call_id: 'c1', output: 'done' },
      { type: 'reasoning', id: '', summary: [] },
      { type: 'mcp_approval_response', approval_request_id: 'mcpr_1', approve: true, reason: null },
    ];
    const got = withItemIds(items);
    assert.match(got[0]!.id!, /^msg_[A-Za-z0-9]{24}$/);
    assert.equal(got[1]!.id, 'fc_given');
    assert.match(got[2]!.id!, /^fco_/);
    assert.match(got[3]!.id!, /^rs_/);
    assert.match(got[4]!.id!, /^mcpa_/);
    assert.deepEqual(got.map((i) => ({ ...i, id: undefined })), items.map((i) => ({ ...i, id: undefined })), 'nothing else changes');
    assert.equal(new Set(got.map((i) => i.id)).size, got.length);
  });

  it('answers the same array when every item has an id', () => {
    const items: ConversationItem[] = [{ type: 'message', id: 'msg_1', role: 'user', content: [] }];
    assert.equal(withItemIds(items), items);
  });
});
