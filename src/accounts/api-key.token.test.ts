import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import { displayPrefix, encodeBase62, generateApiKey, hashApiKey, isApiKeyShaped } from './api-key.token.ts';

describe('api key tokens', () => {
  it('issues svk_ keys of 43 base62 characters that pass the shape check', () => {
    const k = generateApiKey();
    assert.match(k.key, /^svk_[0-9A-Za-z]{43}$/);
    assert.ok(isApiKeyShaped(k.key));
    assert.equal(k.prefix, k.key.slice(0, 10));
    assert.equal(k.prefix, displayPrefix(k.key));
  });

  it('stores only the sha256 hex of the key', () => {
    const k = generateApiKey();
    assert.equal(k.hash, createHash('sha256').update(k.key).digest('hex'));
    assert.equal(hashApiKey(k.key), k.hash);
    assert.ok(!k.hash.includes(k.key.slice(4)));
  });

  it('gives distinct keys', () => {
    const keys = new Set(Array.from({ length: 200 }, () => generateApiKey().key));
    assert.equal(keys.size, 200);
  });

  it('encodes the extremes of 32 bytes in exactly 43 digits', () => {
    const zero = generateApiKey(() => new Uint8Array(32));
    assert.equal(zero.key, `svk_${'0'.repeat(43)}`);
    const max = generateApiKey(() => new Uint8Array(32).fill(255));
    assert.equal(max.key.length, 47);
    assert.ok(isApiKeyShaped(max.key));
    assert.equal(encodeBase62(Uint8Array.of(61), 2), '0z');
    assert.equal(encodeBase62(Uint8Array.of(62), 2), '10');
    assert.throws(() => encodeBase62(Uint8Array.of(255, 255), 2), RangeError);
  });

  it('rejects anything else before any lookup', () => {
    for (const bad of ['', 'svk_', 'sk-abc', `svk_${'a'.repeat(42)}`, `svk_${'a'.repeat(44)}`, `svk_${'a'.repeat(42)}-`, `SVK_${'a'.repeat(43)}`]) {
      assert.equal(isApiKeyShaped(bad), false, bad);
    }
  });
});
