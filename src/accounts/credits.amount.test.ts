import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { CreditsAmountError, creditsNumber, formatCredits, parseCredits } from './credits.amount.ts';

describe('credit amounts', () => {
  it('parses credits to micro-credits exactly, negatives included', () => {
    assert.equal(parseCredits(10), 10_000_000n);
    assert.equal(parseCredits(0.1), 100_000n);
    assert.equal(parseCredits(0.000001), 1n);
    assert.equal(parseCredits(-2.5), -2_500_000n);
    assert.equal(parseCredits(123456789.123456), 123_456_789_123_456n);
    assert.equal(parseCredits('0.30'), 300_000n);
    assert.equal(parseCredits(1.10), 1_100_000n);
  });

  it('refuses more than 6 decimals, non-numbers and out-of-range amounts', () => {
    for (const bad of [0.0000001, 1.1234567, Number.NaN, Infinity, 1e10, -1e10, '1e3', 'abc', '1.']) {
      assert.throws(() => parseCredits(bad), CreditsAmountError, String(bad));
    }
  });

  it('formats micro-credits as exact decimal text and numbers', () => {
    assert.equal(formatCredits(0n), '0');
    assert.equal(formatCredits(1_500_000n), '1.5');
    assert.equal(formatCredits(-25n), '-0.000025');
    assert.equal(formatCredits(112_500n), '0.1125');
    assert.equal(creditsNumber(112_500n), 0.1125);
    assert.equal(JSON.stringify(creditsNumber(300_000n)), '0.3');
  });

  it('round-trips every amount of up to 10^9 credits with 6 decimals', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -(10n ** 15n), max: 10n ** 15n }), (micro) => {
        assert.equal(parseCredits(creditsNumber(micro)), micro);
        assert.equal(parseCredits(formatCredits(micro)), micro);
      }),
    );
  });
});
