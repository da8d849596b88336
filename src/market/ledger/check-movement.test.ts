import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkMovement, LedgerError } from './check-movement.ts';

const W = 'wallet:0x' + 'ab'.repeat(20);

describe('checkMovement', () => {
  it('accepts entries that sum to zero', () => {
    checkMovement({ type: 'deposit', entries: [{ account: 'external', amount: -5n }, { account: W, amount: 5n }] });
    checkMovement({
      type: 'settlement',
      entries: [
        { account: 'escrow:7', amount: -10n },
        { account: W, amount: 9n },
        { account: 'fees', amount: 1n },
      ],
    });
  });

  it('refuses unbalanced, single-entry, zero and unknown-account movements', () => {
    const bad = [
      [{ account: 'external', amount: -5n }, { account: W, amount: 4n }],
      [{ account: W, amount: 0n }, { account: 'fees', amount: 0n }],
      [{ account: 'external', amount: 0n }],
      [{ account: 'external', amount: -1n }, { account: 'wallet:0xABC', amount: 1n }],
      [{ account: 'external', amount: -1n }, { account: 'escrow:0', amount: 1n }],
    ];
    for (const entries of bad) assert.throws(() => checkMovement({ type: 'deposit', entries }), LedgerError);
  });
});
