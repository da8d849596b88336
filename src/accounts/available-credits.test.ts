import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { availableCredits } from './available-credits.ts';

describe('availableCredits', () => {
  it('is the balance when nothing is reserved', () => {
    assert.equal(availableCredits({ credits: 5_000_000n, reserved: 0n }, 0n), 5_000_000n);
  });
  it('keeps back what other holds reserve, not this instance\'s unheld lease', () => {
    assert.equal(availableCredits({ credits: 5_000_000n, reserved: 2_000_000n }, 0n), 3_000_000n);
    assert.equal(availableCredits({ credits: 5_000_000n, reserved: 2_000_000n }, 1_500_000n), 4_500_000n);
    assert.equal(availableCredits({ credits: 5_000_000n, reserved: 2_000_000n }, 2_000_000n), 5_000_000n);
  });
  it('never adds back more than is reserved', () => {
    assert.equal(availableCredits({ credits: 5_000_000n, reserved: 1_000_000n }, 3_000_000n), 5_000_000n);
  });
  it('can be negative when the balance went below zero (an operator\'s correction)', () => {
    assert.equal(availableCredits({ credits: -1n, reserved: 0n }, 0n), -1n);
  });
});
