import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { HttpError } from '../../shared/errors.ts';
import { normalizeWalletAddress } from './wallet-address.ts';

describe('normalizeWalletAddress', () => {
  it('lower-cases a valid address', () => {
    assert.equal(normalizeWalletAddress('0xABCDEF0123456789abcdef0123456789ABCDEF01'), '0xabcdef0123456789abcdef0123456789abcdef01');
  });

  it('refuses anything else with a 400 naming the field', () => {
    for (const bad of ['', '0x123', 'abcdef0123456789abcdef0123456789abcdef0123', '0x' + 'g'.repeat(40), '0x' + 'a'.repeat(41), 42, null]) {
      assert.throws(
        () => normalizeWalletAddress(bad, 'wallet_addr'),
        (e: unknown) => e instanceof HttpError && e.status === 400 && e.message.startsWith('invalid wallet_addr'),
      );
    }
  });
});
