import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { readRetrieveInclude, withEncryptedReasoning } from './retrieve-include.ts';

describe('retrieve include', () => {
  it("reads the SDK's bracket form, a repeated and a single plain include", () => {
    assert.deepEqual(readRetrieveInclude({ 'include[]': ['a', 'b'] }), ['a', 'b']);
    assert.deepEqual(readRetrieveInclude({ 'include[]': 'a' }), ['a']);
    assert.deepEqual(readRetrieveInclude({ include: ['a', 'b'] }), ['a', 'b']);
    assert.deepEqual(readRetrieveInclude({ include: 'a' }), ['a']);
    assert.deepEqual(readRetrieveInclude(undefined), []);
  });

  it("gives each reasoning item its stored item's encrypted_content, null when it has none, and leaves the rest", () => {
    const body = {
      id: 'resp_1',
      output: [
        { id: 'rs_1', type: 'reasoning', summary: [] },
        { id: 'rs_2', type: 'reasoning', summary: [] },
        { id: 'msg_1', type: 'message', content: [] },
      ],
    };
    const stored = [
      { id: 'rs_1', type: 'reasoning' as const, summary: [], encrypted_content: 'sealed' },
      { id: 'rs_2', type: 'reasoning' as const, summary: [] },
    ];
    assert.deepEqual(withEncryptedReasoning(body, stored), {
      id: 'resp_1',
      output: [
        { id: 'rs_1', type: 'reasoning', summary: [], encrypted_content: 'sealed' },
        { id: 'rs_2', type: 'reasoning', summary: [], encrypted_content: null },
        { id: 'msg_1', type: 'message', content: [] },
      ],
    });
  });
});
