import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildCatalog } from '../../config/catalog.ts';
import { HttpError } from '../../shared/errors.ts';
import type { RequestNeeds } from './request-needs.ts';
import { selectAutoModel } from './select-auto-model.ts';

const catalog = (env: Record<string, string> = { A: 'k', B: 'k' }) =>
  buildCatalog(
    {
      providers: [
        { id: 'a', type: 'openai', base_url: 'https://a.example/v1', api_key: '${A}' },
        { id: 'b', type: 'anthropic', base_url: 'https://b.example', api_key: '${B}' },
      ],
      models: [
        { id: 'svc-mini', type: 'chat', context: 8000, max_output: 4000, pricing: { input: 0.1, output: 0.2 }, deployments: [{ provider: 'a', model: 'm' }] },
        { id: 'svc-fast', type: 'chat', context: 1000000, max_output: 100000, pricing: { input: 0.45, output: 0.9 }, deployments: [{ provider: 'a', model: 'f' }] },
        {
          id: 'svc-vision', type: 'chat', context: 200000, pricing: { input: 1.8, output: 5.5 },
          capabilities: { vision: true }, deployments: [{ provider: 'b', model: 'v' }],
        },
        { id: 'svc-pro', type: 'chat', context: 1000000, pricing: { input: 3.2, output: 9.8 }, capabilities: { tools: true }, deployments: [{ provider: 'b', model: 'p' }] },
        { id: 'svc-auto', type: 'chat' },
      ],
      auto: {
        candidates: ['svc-mini', 'svc-fast', 'svc-vision', 'svc-pro'],
        rules: [
          { lanes: ['math'], use: ['svc-pro'] },
          { tools: true, use: ['svc-fast', 'svc-pro'] },
          { reasoning: true, use: ['svc-pro'] },
        ],
      },
    },
    env,
  );

// Unless given, the tokenizer counts what the estimate says.
const needs = (n: Partial<RequestNeeds> = {}): RequestNeeds => ({
  images: false, tools: false, structuredOutput: false, stream: false, reasoning: false, inputTokens: 20, outputTokens: null,
  exceedsContext: (limit) => (n.inputTokens ?? 20) > limit, ...n,
});

describe('selectAutoModel', () => {
  const c = catalog();
  const pick = (lane: Parameters<typeof selectAutoModel>[2], n: Partial<RequestNeeds> = {}) => selectAutoModel(c, c.auto!, lane, needs(n)).id;

  it('takes the cheapest model that fits: a short question on the smallest one', () => {
    assert.equal(pick('general'), 'svc-mini');
  });

  it('takes a model whose context holds the input and the requested output', () => {
    assert.equal(pick('general', { inputTokens: 9000 }), 'svc-fast', 'more than the small context');
    assert.equal(pick('general', { inputTokens: 7800, outputTokens: 500 }), 'svc-fast', 'input and requested output exceed it');
    assert.equal(pick('general', { inputTokens: 7000, outputTokens: 500 }), 'svc-mini', 'fits with a small output cap');
    assert.equal(pick('general', { inputTokens: 500_000 }), 'svc-fast');
    assert.equal(pick('general', { outputTokens: 150_000 }), 'svc-vision', 'max_output: only the models without a limit below it');
  });

  it('holds the input to a context by its token count: the byte-based estimate is deliberately high', () => {
    // An estimate of 9,000 whose text counts 7,000 tokens fits svc-mini's 8,000.
    assert.equal(pick('general', { inputTokens: 9000, exceedsContext: (limit) => 7000 > limit }), 'svc-mini');
    assert.equal(pick('general', { inputTokens: 9000, outputTokens: 500, exceedsContext: (limit) => 7600 > limit }), 'svc-fast', 'the count and the requested output exceed it');
    const all = selectAutoModel(c, c.auto!, 'general', needs({ inputTokens: 1_200_000, exceedsContext: (limit) => 600_000 > limit }));
    assert.equal(all.id, 'svc-fast', 'an estimate over every context does not refuse a prompt that fits');
  });

  it('reads a rule\'s min_input_tokens as the token count, not the estimate', () => {
    const longInput = buildCatalog(
      {
        providers: [{ id: 'a', type: 'openai', base_url: 'https://a.example/v1', api_key: 'k' }],
        models: [
          { id: 'svc-fast', type: 'chat', context: 1000000, pricing: { input: 0.45, output: 0.9 }, deployments: [{ provider: 'a', model: 'f' }] },
          { id: 'svc-pro', type: 'chat', context: 1000000, pricing: { input: 3.2, output: 9.8 }, deployments: [{ provider: 'a', model: 'p' }] },
          { id: 'svc-auto', type: 'chat' },
        ],
        auto: { candidates: ['svc-fast', 'svc-pro'], rules: [{ min_input_tokens: 200000, use: ['svc-pro'] }] },
      },
      {},
    );
    const choose = (n: Partial<RequestNeeds>) => selectAutoModel(longInput, longInput.auto!, 'general', needs(n)).id;
    assert.equal(choose({ inputTokens: 270_000, exceedsContext: (limit) => 150_000 > limit }), 'svc-fast', '150K tokens, estimated 270K');
    assert.equal(choose({ inputTokens: 360_000, exceedsContext: (limit) => 200_000 > limit }), 'svc-pro', 'exactly 200,000 tokens');
    assert.equal(choose({ inputTokens: 360_000, exceedsContext: (limit) => 199_999 > limit }), 'svc-fast');
  });

  it('takes a vision model for images', () => {
    assert.equal(pick('vision', { images: true }), 'svc-vision');
  });

  it("follows the first matching rule, and falls back to every capable model when the rule's cannot serve", () => {
    assert.equal(pick('math'), 'svc-pro');
    assert.equal(pick('agent', { tools: true }), 'svc-fast');
    const noB = catalog({ A: 'k' });
    assert.equal(selectAutoModel(noB, noB.auto!, 'math', needs()).id, 'svc-mini', 'svc-pro is not configured');
  });

  it('follows a rule on whether the request asks for reasoning', () => {
    assert.equal(pick('code', { reasoning: true }), 'svc-pro');
    assert.equal(pick('code', { reasoning: false }), 'svc-mini');
    assert.equal(pick('vision', { reasoning: true, images: true }), 'svc-vision', "the rule's model cannot see: every capable one stays in");
  });

  it('passes over a candidate whose every deployment refuses calls (its breaker open), 503 when all do', () => {
    const notMini = (d: { key: string }) => d.key !== 'a/m';
    assert.equal(selectAutoModel(c, c.auto!, 'general', needs(), notMini).id, 'svc-fast');
    assert.throws(
      () => selectAutoModel(c, c.auto!, 'general', needs(), () => false),
      (e: unknown) => e instanceof HttpError && e.status === 503 && e.message === 'model svc-auto is not available',
    );
  });

  it('answers 400 naming the need nothing meets, 503 when what could serve is down', () => {
    assert.throws(
      () => pick('vision', { images: true, inputTokens: 900_000 }),
      (e: unknown) => e instanceof HttpError && e.status === 400 && /images, about 900000 input tokens/.test(e.message),
    );
    const noB = catalog({ A: 'k' });
    assert.throws(
      () => selectAutoModel(noB, noB.auto!, 'vision', needs({ images: true })),
      (e: unknown) => e instanceof HttpError && e.status === 503 && e.message === 'model svc-auto is not available',
    );
  });
});
