import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { guardInput } from './input-guard.ts';

const schema = {
  type: 'object',
  properties: { id: { type: 'integer' }, ratio: { type: 'number' }, note: { type: 'string' }, tags: { type: 'array', items: { type: 'string' } } },
};

describe('guardInput', () => {
  it('passes what storage holds', () => {
    assert.equal(guardInput(schema, { id: 2 ** 53 - 1, ratio: 1e300, note: 'caf\u00e9 \ud83d\ude00', tags: ['a'] }), null);
    assert.equal(guardInput(undefined, null), null);
  });

  it('refuses non-finite numbers and integers past the safe range, naming the field', () => {
    assert.deepEqual(pick(guardInput(schema, { ratio: Infinity })), ['finite', '/ratio']);
    assert.deepEqual(pick(guardInput(schema, { id: 2 ** 63 })), ['safeInteger', '/id']);
    // A number field may hold a large float; only integer fields are held to the safe range.
    assert.equal(guardInput(schema, { ratio: 2 ** 63 }), null);
  });

  it('refuses NUL and unpaired surrogates in values and field names', () => {
    assert.deepEqual(pick(guardInput(schema, { note: 'a\u0000b' })), ['noNul', '/note']);
    assert.deepEqual(pick(guardInput(schema, { tags: ['ok', '\ud800x'] })), ['wellFormed', '/tags/1']);
    assert.deepEqual(pick(guardInput(schema, { tags: ['\udc00'] })), ['wellFormed', '/tags/0']);
    assert.equal(pick(guardInput(undefined, { 'a\u0000': 1 }))[0], 'noNul');
  });

  it('refuses nesting deeper than any request needs, without exhausting the stack', () => {
    let deep: unknown = 1;
    for (let i = 0; i < 100_000; i++) deep = [deep];
    assert.equal(pick(guardInput(undefined, deep))[0], 'depth');
  });
});

function pick(e: ReturnType<typeof guardInput>): [string, string] {
  assert.ok(e);
  return [e.keyword, e.instancePath];
}
