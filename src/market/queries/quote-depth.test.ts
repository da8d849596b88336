import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { marketPools, poolPrice } from '../pricing/index.ts';
import { quoteDepth } from './quote-depth.ts';

const USDC = 1_000_000n;

describe('quoteDepth', () => {
  it('brackets the price by one minimum stake on either side', () => {
    // 50/50 seeds of 100 USDC, 60 USDC on yes, 40 on no: S = 110, N = 200.
    const pools = marketPools({ yes: 50n * USDC, no: 50n * USDC }, { yes: 60n * USDC, no: 40n * USDC });
    const q = quoteDepth(pools, 'yes');
    assert.equal(q.bestBid, 110 / 201);
    assert.equal(q.bestAsk, 111 / 201);
    assert.equal(q.spread, 1 / 201);
    const price = poolPrice(pools, 'yes');
    assert.ok(q.bestBid <= price && price <= q.bestAsk);
  });

  it('narrows as the pools deepen and works for the draw of a threeway market', () => {
    const shallow = quoteDepth(marketPools({ yes: USDC, no: USDC, draw: USDC }), 'draw');
    const deep = quoteDepth(marketPools({ yes: USDC, no: USDC, draw: USDC }, { yes: 0n, no: 0n, draw: 997n * USDC }), 'draw');
    assert.equal(shallow.spread, 1 / 4);
    assert.equal(deep.spread, 1 / 1001);
    assert.equal(deep.bestAsk, 999 / 1001);
  });
});
