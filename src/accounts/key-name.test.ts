import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkKeyName, KEY_NAME_MAX } from './key-name.ts';

const CONTROL = 'must not contain control characters (line breaks, tabs, escapes, bidirectional controls)';

describe('checkKeyName', () => {
  it('refuses controls, separators and bidi controls anywhere, even at the ends trim() would remove', () => {
    for (const c of ['\u0000', '\t', '\n', '\r', '\u001b', '\u007f', '\u0085', '\u009f', '\u2028', '\u2029', '\u061c', '\u200e', '\u200f', '\u202a', '\u202e', '\u2066', '\u2069']) {
      assert.deepEqual(checkKeyName(`a${c}b`, { allowBlank: true }), { problem: CONTROL }, JSON.stringify(c));
      assert.deepEqual(checkKeyName(`name${c}`, { allowBlank: true }), { problem: CONTROL }, JSON.stringify(c));
    }
  });
  it('keeps letters of every script, emoji joined by ZWJ, and spaces inside; trims the ends', () => {
    for (const n of ['laptop', 'josé’s key', '👩‍💻 work', 'مفتاح الإنتاج', 'a\u00a0b']) assert.deepEqual(checkKeyName(n, { allowBlank: false }), { name: n });
    assert.deepEqual(checkKeyName('  padded  ', { allowBlank: false }), { name: 'padded' });
  });
  it('counts code points of the trimmed name', () => {
    assert.deepEqual(checkKeyName('😀'.repeat(KEY_NAME_MAX), { allowBlank: false }), { name: '😀'.repeat(KEY_NAME_MAX) });
    assert.deepEqual(checkKeyName(` ${'x'.repeat(KEY_NAME_MAX)} `, { allowBlank: false }), { name: 'x'.repeat(KEY_NAME_MAX) });
    assert.deepEqual(checkKeyName('x'.repeat(KEY_NAME_MAX + 1), { allowBlank: false }), { problem: `must be at most ${KEY_NAME_MAX} characters` });
  });
  it('a blank name only where allowed', () => {
    assert.deepEqual(checkKeyName('  ', { allowBlank: false }), { problem: 'must not be blank' });
    assert.deepEqual(checkKeyName('  ', { allowBlank: true }), { name: '' });
  });
});
