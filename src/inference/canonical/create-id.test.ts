import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createId } from './create-id.ts';

describe('createId', () => {
  it('prefixes a base62 random part of the asked length', () => {
    assert.match(createId('chatcmpl-'), /^chatcmpl-[A-Za-z0-9]{24}$/);
    assert.match(createId('call_', 10), /^call_[A-Za-z0-9]{10}$/);
  });

  it('does not repeat', () => {
    const ids = new Set(Array.from({ length: 1000 }, () => createId('x')));
    assert.equal(ids.size, 1000);
  });
});
