import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildCatalog } from '../../config/catalog.ts';
import { DEFAULT_OUTPUT_RESERVATION_TOKENS, estimateCharge, estimateTokensFromText } from './estimate.ts';

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

describe('estimateCharge', () => {
  it('holds input plus max_tokens of output; the minimum is the input', () => {
    // 100 in * 1 credit/1K + 200 out * 2 credits/1K = 0.5 credits
    assert.deepEqual(estimateCharge(model('svc-chat'), { inputTokens: 100, maxOutputTokens: 200 }), { estimate: 500_000n, minimum: 100_000n });
  });

  it("bounds the output by the model's max output and the input by its context", () => {
    assert.deepEqual(estimateCharge(model('svc-chat'), { inputTokens: 5000, maxOutputTokens: 10_000 }), {
      estimate: 1_000_000n + 1_000_000n,
      minimum: 1_000_000n,
    });
  });

  it('reserves the documented default when max_tokens is not given', () => {
    const e = estimateCharge(model('svc-open'), { inputTokens: 0 });
    assert.equal(e.estimate, BigInt(DEFAULT_OUTPUT_RESERVATION_TOKENS) * 2_000_000n / 1000n);
    assert.equal(estimateCharge(model('svc-chat'), { inputTokens: 0 }).estimate, 1_000_000n, 'still bounded by max output');
  });

  it('never lets a zero balance through: the minimum is at least one micro-credit', () => {
    assert.deepEqual(estimateCharge(model('svc-free'), { inputTokens: 100 }), { estimate: 0n, minimum: 1n });
    assert.equal(estimateCharge(model('svc-chat'), { inputTokens: 0, maxOutputTokens: 10 }).minimum, 1n);
  });

  it('has no output part for embeddings and prices images per image', () => {
    assert.deepEqual(estimateCharge(model('svc-embed'), { inputTokens: 1000, maxOutputTokens: 99 }), { estimate: 200_000n, minimum: 200_000n });
    assert.deepEqual(estimateCharge(model('svc-image'), { inputTokens: 50, images: 2 }), { estimate: 80_000_000n, minimum: 80_000_000n });
  });
});

describe('estimateTokensFromText', () => {
  it('counts one token per 3 UTF-8 bytes, rounding up', () => {
    assert.equal(estimateTokensFromText(''), 0);
    assert.equal(estimateTokensFromText('hello world'), 4);
    assert.equal(estimateTokensFromText('日本語'), 3, '9 bytes');
  });
});
