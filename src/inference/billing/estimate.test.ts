import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildCatalog } from '../../config/catalog.ts';
import { DEFAULT_OUTPUT_RESERVATION_TOKENS, estimateCharge, estimateTokensFromText, holdAmount, outputTokensCovered } from './estimate.ts';

const catalog = buildCatalog(
  {
    providers: [
      { id: 'o', type: 'openai', base_url: 'https://up.example/v1', api_key: 'k' },
      { id: 'i', type: 'images', base_url: 'https://img.example', api_key: 'k' },
    ],
    models: [
      { id: 'svc-chat', type: 'chat', context: 1000, max_output: 500, pricing: { input: 1, output: 2 }, deployments: [{ provider: 'o', model: 'm' }] },
      { id: 'svc-open', type: 'chat', pricing: { input: 1, output: 2 }, deployments: [{ provider: 'o', model: 'm' }] },
      { id: 'svc-free', type: 'chat', deployments: [{ provider: 'o', model: 'm' }] },
      { id: 'svc-embed', type: 'embedding', context: 8192, pricing: { input: 0.2 }, deployments: [{ provider: 'o', model: 'e' }] },
      { id: 'svc-image', type: 'image', pricing: { per_image: 40 }, deployments: [{ provider: 'i', model: 'x' }] },
    ],
  },
  {},
);
const model = (id: string) => catalog.models.get(id)!;

const money = (e: { estimate: bigint; minimum: bigint }) => ({ estimate: e.estimate, minimum: e.minimum });

describe('estimateCharge', () => {
  it('holds input plus max_tokens of output; the minimum is the input', () => {
    // 100 in * 1 credit/1K + 200 out * 2 credits/1K = 0.5 credits
    const e = estimateCharge(model('svc-chat'), { inputTokens: 100, maxOutputTokens: 200 });
    assert.deepEqual(money(e), { estimate: 500_000n, minimum: 100_000n });
    assert.deepEqual(e.output, { maxTokens: 200, open: false, inputPerThousand: 100_000_000n, pricePerThousand: 2_000_000n, typical: 500_000n });
  });

  it("bounds the output by the model's max output and the input by its context", () => {
    assert.deepEqual(money(estimateCharge(model('svc-chat'), { inputTokens: 5000, maxOutputTokens: 10_000 })), {
      estimate: 1_000_000n + 1_000_000n,
      minimum: 1_000_000n,
    });
  });

  it("holds for the model's whole max output when max_tokens is not given (the worst case)", () => {
    const e = estimateCharge(model('svc-chat'), { inputTokens: 0 });
    assert.equal(e.estimate, 1_000_000n, '500 tokens at 2 credits/1K');
    assert.equal(e.output?.open, true);
    // Without a max output, the context bounds the output.
    const o = estimateCharge(model('svc-open'), { inputTokens: 0 });
    assert.equal(o.output?.maxTokens, DEFAULT_OUTPUT_RESERVATION_TOKENS, 'no context either: the default');
    assert.equal(o.output?.typical, BigInt(DEFAULT_OUTPUT_RESERVATION_TOKENS) * 2_000_000n / 1000n);
  });

  it('never lets a zero balance through: the minimum is at least one micro-credit', () => {
    assert.deepEqual(money(estimateCharge(model('svc-free'), { inputTokens: 100 })), { estimate: 0n, minimum: 1n });
    assert.equal(estimateCharge(model('svc-chat'), { inputTokens: 0, maxOutputTokens: 10 }).minimum, 1n);
  });

  it('has no output part for embeddings and prices images per image', () => {
    assert.deepEqual(estimateCharge(model('svc-embed'), { inputTokens: 1000, maxOutputTokens: 99 }), { estimate: 200_000n, minimum: 200_000n });
    assert.deepEqual(estimateCharge(model('svc-image'), { inputTokens: 50, images: 2 }), { estimate: 80_000_000n, minimum: 80_000_000n });
  });
});

describe('holdAmount and outputTokensCovered', () => {
  it('holds the worst case when the balance covers it, else all of it, else 402 (null)', () => {
    const e = estimateCharge(model('svc-chat'), { inputTokens: 100, maxOutputTokens: 200 });
    assert.equal(holdAmount(e, 10_000_000n), 500_000n);
    assert.equal(holdAmount(e, 300_000n), 300_000n);
    assert.equal(holdAmount(e, 99_999n), null, 'below the input cost');
    assert.equal(holdAmount(e, 0n), null);
    assert.equal(holdAmount(e, -5n), null);
  });

  it('gives a request without max_tokens half of the balance, but at least its typical cost', () => {
    const e = estimateCharge(model('svc-open'), { inputTokens: 0 });
    // worst case = typical here (4096 tokens, 8.192 credits): the share never goes below it.
    assert.equal(holdAmount(e, 100_000_000n), e.estimate);
    const big = estimateCharge(model('svc-chat'), { inputTokens: 0 });
    assert.equal(holdAmount(big, 1_500_000n), 1_000_000n, 'half is 0.75, but the typical cost (500 tokens) is 1');
    assert.equal(holdAmount(big, 600_000n), 600_000n, 'all of a balance below the typical cost');
  });

  it('holds an input margin when the balance covers it, never in the minimum nor out of the output', () => {
    const e = estimateCharge(model('svc-chat'), { inputTokens: 100, inputMarginTokens: 50, maxOutputTokens: 200 });
    assert.deepEqual(money(e), { estimate: 550_000n, minimum: 100_000n });
    assert.equal(outputTokensCovered(e, 300_000n), 100, 'a partial hold pays for output first');
  });

  it('turns a hold into the output tokens it pays for, never beyond the allowance, at least 1', () => {
    const e = estimateCharge(model('svc-chat'), { inputTokens: 100, maxOutputTokens: 200 });
    assert.equal(outputTokensCovered(e, 500_000n), 200);
    // 0.3 credits: 0.1 for the input, 0.2 for 100 tokens at 2 credits/1K.
    assert.equal(outputTokensCovered(e, 300_000n), 100);
    assert.equal(outputTokensCovered(e, 300_001n), 100, 'rounded down: the hold always covers it');
    assert.equal(outputTokensCovered(e, 100_000n), 1);
    assert.equal(outputTokensCovered(estimateCharge(model('svc-embed'), { inputTokens: 10 }), 1000n), null);
    assert.equal(outputTokensCovered(estimateCharge(model('svc-free'), { inputTokens: 10, maxOutputTokens: 7 }), 0n), 7);
  });
});

describe('estimateTokensFromText', () => {
  it('counts one token per 3 UTF-8 bytes, rounding up', () => {
    assert.equal(estimateTokensFromText(''), 0);
    assert.equal(estimateTokensFromText('hello world'), 4);
    assert.equal(estimateTokensFromText('日本語'), 3, '9 bytes');
  });
});
