import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decodeFloat32Base64, encodeFloat32Base64 } from './float32-base64.ts';

describe('float32 base64', () => {
  it('round-trips float32 values', () => {
    const v = [0.5, -1.25, 0, 3];
    assert.equal(encodeFloat32Base64(v), 'AAAAPwAAoL8AAAAAAABAQA==');
    assert.deepEqual(decodeFloat32Base64('AAAAPwAAoL8AAAAAAABAQA=='), v);
  });

  it('rounds to float32 precision', () => {
    const [x] = decodeFloat32Base64(encodeFloat32Base64([0.1]));
    assert.equal(x, Math.fround(0.1));
  });
});
