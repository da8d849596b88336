import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { plainDecimal, splitDecimal } from './decimal-text.ts';

describe('plainDecimal', () => {
  it('keeps the shortest round-trip text of ordinary numbers', () => {
    assert.equal(plainDecimal(0.1), '0.1');
    assert.equal(plainDecimal(1.000001), '1.000001');
    assert.equal(plainDecimal(-2.5), '-2.5');
    assert.equal(plainDecimal(-0), '0');
  });

  it('expands exponent forms without float arithmetic', () => {
    assert.equal(plainDecimal(1e-7), '0.0000001');
    assert.equal(plainDecimal(1.5e-7), '0.00000015');
    assert.equal(plainDecimal(-1.25e-8), '-0.0000000125');
    assert.equal(plainDecimal(1e21), '1000000000000000000000');
    assert.equal(plainDecimal(1.5e21), '1500000000000000000000');
  });

  it('refuses non-finite numbers', () => {
    assert.throws(() => plainDecimal(Number.NaN), RangeError);
    assert.throws(() => plainDecimal(Infinity), RangeError);
  });
});

describe('splitDecimal', () => {
  it('splits plain decimals and refuses anything else', () => {
    assert.deepEqual(splitDecimal('12.3400'), { whole: '12', fraction: '3400' });
    assert.deepEqual(splitDecimal('7'), { whole: '7', fraction: '' });
    for (const bad of ['', '.5', '5.', '-1', '+1', '1e3', ' 1', '1,5', '0x10']) assert.equal(splitDecimal(bad), null, bad);
  });
});
