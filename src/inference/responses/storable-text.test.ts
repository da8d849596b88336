import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { storableId, storableJson } from './storable-text.ts';

describe('storableJson', () => {
  it('replaces NUL characters and unpaired surrogates, in values and field names, with U+FFFD', () => {
    const given = { a: 'x\u0000y', b: ['ok', 'cut \uD83D', '\uDE00 lone'], 'k\u0000': { deep: [{ t: '\u0000\u0000' }] }, n: 1, z: null };
    assert.deepEqual(storableJson(given), { a: 'x\uFFFDy', b: ['ok', 'cut \uFFFD', '\uFFFD lone'], 'k\uFFFD': { deep: [{ t: '\uFFFD\uFFFD' }] }, n: 1, z: null });
    assert.equal(given.a, 'x\u0000y', 'the value given is unchanged');
  });

  it('keeps paired surrogates (emoji) and returns a clean value as it is', () => {
    const clean = { t: 'smile \uD83D\uDE00', list: [1, 'two', { three: true }] };
    assert.equal(storableJson(clean), clean);
    assert.equal(storableJson('\uD83D\uDE00'), '\uD83D\uDE00');
  });

  it('storableId: an id with a NUL names nothing stored', () => {
    assert.equal(storableId('resp_abc'), true);
    assert.equal(storableId('resp_\u0000'), false);
  });
});
