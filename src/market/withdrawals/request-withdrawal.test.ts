import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { maxWithdrawOf } from './request-withdrawal.ts';

describe('maxWithdrawOf', () => {
  it('is the smaller of available and on-chain payable', () => {
    assert.equal(maxWithdrawOf(50n, 20n), 20n);
    assert.equal(maxWithdrawOf(50n, 80n), 50n);
    assert.equal(maxWithdrawOf(50n, 50n), 50n);
  });

  it('is available alone when the chain amount is unknown, and never negative', () => {
    assert.equal(maxWithdrawOf(50n, null), 50n);
    assert.equal(maxWithdrawOf(0n, null), 0n);
    assert.equal(maxWithdrawOf(-3n, null), 0n);
    assert.equal(maxWithdrawOf(50n, 0n), 0n);
  });
});
