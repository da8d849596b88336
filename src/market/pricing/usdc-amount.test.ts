import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { MAX_AMOUNT_UNITS, formatUsdc, parseUsdcAmount, stakeNumberToUnits, usdcNumberToUnits, usdcText } from './usdc-amount.ts';

describe('parseUsdcAmount', () => {
  it('reads the decimal text, so float sums and long fractions come out exact', () => {
    assert.equal(parseUsdcAmount(1), 1_000_000n);
    assert.equal(parseUsdcAmount(1.000001), 1_000_001n);
    assert.equal(parseUsdcAmount(0.3), 300_000n);
    // 4.35 * 1e6 is 4349999.999999999 in float64 and 1.005 is 1.00499999999999989...: no matter.
    assert.equal(parseUsdcAmount(4.35), 4_350_000n);
    assert.equal(parseUsdcAmount(1.005), 1_005_000n);
    assert.equal(parseUsdcAmount(0.1), 100_000n);
    assert.equal(parseUsdcAmount(123.456789), 123_456_789n);
    assert.equal(parseUsdcAmount(1e-6), 1n);
    assert.equal(parseUsdcAmount(1e9), MAX_AMOUNT_UNITS);
    assert.equal(parseUsdcAmount('25.50'), 25_500_000n);
    assert.equal(parseUsdcAmount('0.000001'), 1n);
    assert.equal(parseUsdcAmount('1.0000000'), 1_000_000n, 'trailing zeros are not decimals of the value');
    assert.equal(parseUsdcAmount('007'), 7_000_000n);
  });

  it('refuses more than 6 decimals, also in exponent form', () => {
    const refused = { status: 400, message: 'amount must have at most 6 decimals' };
    assert.throws(() => parseUsdcAmount(1e-7), refused);
    assert.throws(() => parseUsdcAmount(1.0000001), refused);
    assert.throws(() => parseUsdcAmount(0.1 + 0.2), refused, '0.30000000000000004 is what the client sent');
    assert.throws(() => parseUsdcAmount('2.1234567'), refused);
  });

  it('refuses what is not a positive finite amount below the maximum, naming the field', () => {
    const bad = (value: unknown, message: string) => assert.throws(() => parseUsdcAmount(value, 'seed_liquidity'), { status: 400, message });
    bad(0, 'seed_liquidity must be greater than 0');
    bad('0.000000', 'seed_liquidity must be greater than 0');
    bad(-1, 'seed_liquidity must be greater than 0');
    bad('-2.5', 'seed_liquidity must be greater than 0');
    bad(Number.NaN, 'seed_liquidity must be a finite number');
    bad(Infinity, 'seed_liquidity must be a finite number');
    bad(null, 'seed_liquidity must be a number');
    bad(true, 'seed_liquidity must be a number');
    bad(10n, 'seed_liquidity must be a number');
    for (const text of ['', ' 1', '1e3', '.5', '5.', '+1', '1,5', 'abc']) bad(text, 'seed_liquidity must be a decimal number of USDC');
    bad(1e9 + 0.000001, 'seed_liquidity must be at most 1000000000 USDC');
    bad(1e21, 'seed_liquidity must be at most 1000000000 USDC');
    assert.throws(() => parseUsdcAmount(-1), { message: 'amount must be greater than 0' });
  });
});

describe('formatUsdc and usdcText', () => {
  it('turn units back into USDC', () => {
    assert.equal(formatUsdc(1_000_001n), 1.000001);
    assert.equal(formatUsdc(171_250_000n), 171.25);
    assert.equal(formatUsdc(0n), 0);
    assert.equal(formatUsdc(-2_500_000n), -2.5);
    assert.equal(formatUsdc(1n), 0.000001);
    assert.equal(JSON.stringify(formatUsdc(100_000n)), '0.1');
    assert.equal(usdcText(1_000_001n), '1.000001');
    assert.equal(usdcText(-1n), '-0.000001');
    assert.equal(usdcText(5_000_000n), '5');
  });

  it('(d) every 6-decimal amount round-trips units -> JSON number -> units', () => {
    fc.assert(
      fc.property(fc.oneof(fc.bigInt({ min: 1n, max: 10_000_000n }), fc.bigInt({ min: 1n, max: MAX_AMOUNT_UNITS })), (units) => {
        const n = formatUsdc(units);
        assert.equal(parseUsdcAmount(JSON.parse(JSON.stringify({ amount: n })).amount), units);
        assert.equal(parseUsdcAmount(usdcText(units)), units);
        assert.equal(parseUsdcAmount(String(n)), units);
      }),
      { numRuns: 5000 },
    );
  });

  it('(d) every 7-decimal amount is refused, as text and as a JSON number', () => {
    // Up to 15 significant digits, so the JSON number's shortest form is the text itself.
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 10n ** 13n }), fc.integer({ min: 1, max: 9 }), (units, seventh) => {
        const tenMillionths = units * 10n + BigInt(seventh);
        const text = `${tenMillionths / 10_000_000n}.${(tenMillionths % 10_000_000n).toString().padStart(7, '0')}`;
        assert.throws(() => parseUsdcAmount(text), { message: 'amount must have at most 6 decimals' });
        assert.throws(() => parseUsdcAmount(JSON.parse(text)), { message: 'amount must have at most 6 decimals' });
      }),
      { numRuns: 2000 },
    );
  });
});

describe('usdcNumberToUnits', () => {
  it('reads any sign and size with at most 6 decimals, leaving bounds to the caller', () => {
    assert.equal(usdcNumberToUnits(1), 1_000_000n);
    assert.equal(usdcNumberToUnits(0.3), 300_000n);
    assert.equal(usdcNumberToUnits(12.345678), 12_345_678n);
    assert.equal(usdcNumberToUnits(0), 0n);
    assert.equal(usdcNumberToUnits(-0), 0n);
    assert.equal(usdcNumberToUnits(-2.5), -2_500_000n);
    assert.equal(usdcNumberToUnits(1e21), 10n ** 27n);
    assert.equal(usdcNumberToUnits(1e-6), 1n);
  });

  it('refuses more than 6 decimals and non-finite numbers, naming the field', () => {
    for (const v of [1.0000001, 1e-7, -0.0000001, 0.1 + 0.2]) {
      assert.throws(() => usdcNumberToUnits(v), { status: 400, message: 'amount must have at most 6 decimals' }, String(v));
    }
    for (const v of [Number.NaN, Infinity, -Infinity]) {
      assert.throws(() => usdcNumberToUnits(v, 'stake'), { status: 400, message: 'stake must be a finite number' }, String(v));
    }
  });
});

describe('stakeNumberToUnits', () => {
  it('reads every amount below 1 USDC as 0 units, whatever its decimals, so the trade\'s minimum refuses it', () => {
    for (const v of [0.5000001, 1e-7, 0.9999999, 0.999999, 0, -0, -1e-7, -5]) assert.equal(stakeNumberToUnits(v), 0n, String(v));
  });

  it('reads 1 USDC and up as usdcNumberToUnits does, refusing more than 6 decimals and non-finite numbers', () => {
    assert.equal(stakeNumberToUnits(1), 1_000_000n);
    assert.equal(stakeNumberToUnits(12.345678), 12_345_678n);
    assert.throws(() => stakeNumberToUnits(1.0000001), { status: 400, message: 'amount must have at most 6 decimals' });
    for (const v of [Number.NaN, Infinity, -Infinity]) assert.throws(() => stakeNumberToUnits(v), { status: 400, message: 'amount must be a finite number' }, String(v));
  });
});
