import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { storableId, storableJsonText } from './storable-text.ts';

describe('storableJsonText', () => {
  const stored = (v: unknown): unknown => JSON.parse(storableJsonText(JSON.stringify(v)));

  it('writes NUL characters and unpaired surrogates, in values and field names, as U+FFFD', () => {
    const given = { a: 'x\u0000y', b: ['ok', 'cut \uD83D', '\uDE00 lone', '\uDE00\uD83D'], 'k\u0000': { deep: [{ t: '\u0000\u0000' }] }, n: 1, z: null };
    assert.deepEqual(stored(given), {
      a: 'x\uFFFDy',
      b: ['ok', 'cut \uFFFD', '\uFFFD lone', '\uFFFD\uFFFD'],
      'k\uFFFD': { deep: [{ t: '\uFFFD\uFFFD' }] },
      n: 1,
      z: null,
    });
  });

  it('keeps paired surrogates, other escapes, and text that only looks like an escape', () => {
    const clean = { t: 'smile \uD83D\uDE00', list: [1, 'two', { three: true }], tab: 'a\tb\u0001"\\', literal: '\\u0000 and \\ud83d' };
    assert.equal(storableJsonText(JSON.stringify(clean)), JSON.stringify(clean));
    assert.deepEqual(stored(clean), clean);
  });

  it('storableId: an id with a NUL names nothing stored', () => {
    assert.equal(storableId('resp_abc'), true);
    assert.equal(storableId('resp_\u0000'), false);
  });
});
