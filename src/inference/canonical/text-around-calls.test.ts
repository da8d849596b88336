import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { textAroundCalls } from './chat.ts';

const call = (id: string) => ({ id, name: 'f', arguments: '{}' });

describe('textAroundCalls', () => {
  it('puts all text before the calls when the answer kept no order', () => {
    assert.deepEqual(textAroundCalls({ text: 'ab', toolCalls: [] }), ['ab']);
    assert.deepEqual(textAroundCalls({ text: 'ab', toolCalls: [call('1'), call('2')] }), ['ab', '', '']);
  });

  it('cuts the text where each call came, the rest after the last', () => {
    assert.deepEqual(textAroundCalls({ text: 'Checking.Let me look.', toolCalls: [call('1')], textBeforeCalls: [9] }), ['Checking.', 'Let me look.']);
    assert.deepEqual(textAroundCalls({ text: 'abc', toolCalls: [call('1'), call('2')], textBeforeCalls: [0, 2] }), ['', 'ab', 'c']);
    assert.deepEqual(textAroundCalls({ text: 'abc', toolCalls: [call('1'), call('2')], textBeforeCalls: [1, 1] }), ['a', '', 'bc']);
  });
});
