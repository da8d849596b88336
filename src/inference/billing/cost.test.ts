import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import type { ModelPricing } from '../../config/catalog.ts';
import { computeCost } from './cost.ts';

// svc-fast: 0.45 / 0.1125 / 0.90 credits per 1K tokens, in micro-credits.
const fast: ModelPricing = { input: 450_000n, cachedInput: 112_500n, output: 900_000n, perImage: 0n };
const image: ModelPricing = { input: 0n, cachedInput: 0n, output: 0n, perImage: 40_000_000n };

describe('computeCost', () => {
  it('prices whole thousands exactly', () => {
    assert.equal(computeCost(fast, { inputTokens: 1000, outputTokens: 1000 }), 1_350_000n);
    assert.equal(computeCost(fast, { inputTokens: 0, outputTokens: 0 }), 0n);
  });

  it('bills cached input tokens at the cached price', () => {
    // (600 * 450,000 + 400 * 112,500) / 1000 = 270,000 + 45,000 micro-credits.
    assert.equal(computeCost(fast, { inputTokens: 1000, cachedInputTokens: 400 }), 315_000n);
    assert.equal(computeCost(fast, { inputTokens: 1000, cachedInputTokens: 1000 }), 112_500n);
  });

  it('rounds the sum up once, to the micro-credit', () => {
    // 1 token of input: 450000/1000 = 450 exactly; 1 cached token: 112.5 -> 113.
    assert.equal(computeCost(fast, { inputTokens: 1 }), 450n);
    assert.equal(computeCost(fast, { inputTokens: 1, cachedInputTokens: 1 }), 113n);
    // Two cached tokens are 225 exactly: rounding happens on the sum, not per token.
    assert.equal(computeCost(fast, { inputTokens: 2, cachedInputTokens: 2 }), 225n);
    const odd: ModelPricing = { input: 1n, cachedInput: 1n, output: 1n, perImage: 0n };
    assert.equal(computeCost(odd, { inputTokens: 1 }), 1n);
    assert.equal(computeCost(odd, { inputTokens: 1000 }), 1n);
    assert.equal(computeCost(odd, { inputTokens: 1001 }), 2n);
  });

  it('prices images per image', () => {
    assert.equal(computeCost(image, { inputTokens: 0, images: 3 }), 120_000_000n);
  });

  it('treats more cached than input tokens as all cached', () => {
    assert.equal(computeCost(fast, { inputTokens: 10, cachedInputTokens: 50 }), computeCost(fast, { inputTokens: 10, cachedInputTokens: 10 }));
  });

  it('refuses negative or fractional counts', () => {
    assert.throws(() => computeCost(fast, { inputTokens: -1 }), RangeError);
    assert.throws(() => computeCost(fast, { inputTokens: 1.5 }), RangeError);
    assert.throws(() => computeCost(fast, { inputTokens: 1, outputTokens: Number.NaN }), RangeError);
  });

  it('is never below the exact cost and less than one micro-credit above it', () => {
    fc.assert(
      fc.property(
        fc.nat({ max: 2_000_000 }),
        fc.nat({ max: 2_000_000 }),
        fc.nat({ max: 2_000_000 }),
        fc.bigInt({ min: 0n, max: 100_000_000n }),
        fc.bigInt({ min: 0n, max: 100_000_000n }),
        fc.bigInt({ min: 0n, max: 100_000_000n }),
        (inTok, cachedTok, outTok, pIn, pCached, pOut) => {
          const cached = Math.min(cachedTok, inTok);
          const pricing = { input: pIn, cachedInput: pCached, output: pOut, perImage: 0n };
          const cost = computeCost(pricing, { inputTokens: inTok, cachedInputTokens: cached, outputTokens: outTok });
          const exactTimes1000 = BigInt(inTok - cached) * pIn + BigInt(cached) * pCached + BigInt(outTok) * pOut;
          assert.ok(cost * 1000n >= exactTimes1000);
          assert.ok(cost * 1000n < exactTimes1000 + 1000n);
        },
      ),
    );
  });

  it('is monotone in every count', () => {
    fc.assert(
      fc.property(fc.nat({ max: 100_000 }), fc.nat({ max: 100_000 }), fc.nat({ max: 1000 }), (a, b, extra) => {
        const base = computeCost(fast, { inputTokens: a, outputTokens: b });
        assert.ok(computeCost(fast, { inputTokens: a + extra, outputTokens: b }) >= base);
        assert.ok(computeCost(fast, { inputTokens: a, outputTokens: b + extra }) >= base);
      }),
    );
  });
});
