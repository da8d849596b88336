import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildCatalog, type ModelConfig } from '../../config/catalog.ts';
import { HttpError, badRequest } from '../../shared/errors.ts';
import type { CanonicalChatRequest } from '../canonical/chat.ts';
import { MAX_FALLBACK_MODELS, readFallbackIds, routeFallbackList } from './fallback-list.ts';

const catalog = buildCatalog(
  {
    providers: [
      { id: 'a', type: 'openai', base_url: 'https://a.example/v1', api_key: 'k' },
      { id: 'off', type: 'openai', base_url: 'https://off.example/v1', api_key: '' },
    ],
    models: [
      { id: 'svc-cheap', type: 'chat', context: 1000, max_output: 100, pricing: { input: 1, cached_input: 0.5, output: 2 }, deployments: [{ provider: 'a', model: 'c' }] },
      { id: 'svc-dear', type: 'chat', context: 500, max_output: 400, pricing: { input: 3, cached_input: 0.25, output: 1 }, deployments: [{ provider: 'a', model: 'd' }] },
      { id: 'svc-off', type: 'chat', pricing: { input: 9, output: 9 }, deployments: [{ provider: 'off', model: 'o' }] },
      { id: 'svc-pipe', type: 'chat', pricing: { input: 0.5, output: 0.5 }, pipeline: { general: ['svc-cheap', 'svc-dear'] } },
    ],
  },
  {},
);
const model = (id: string): ModelConfig => catalog.models.get(id)!;
const hi: CanonicalChatRequest = { messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }], tools: [], stop: [], stream: false };
const refuses = (fn: () => unknown, status: number, message: string) =>
  assert.throws(fn, (e: unknown) => e instanceof HttpError && e.status === status && e.message === message);

describe('readFallbackIds', () => {
  it('puts `model` first and keeps each id once', () => {
    assert.deepEqual(readFallbackIds(['b', 'a', 'b'], 'a'), ['a', 'b']);
    assert.deepEqual(readFallbackIds(['b', 'c'], undefined), ['b', 'c']);
  });
  it('refuses what is not a list of 1 to 5 ids, naming the field', () => {
    refuses(() => readFallbackIds('a', undefined), 400, 'models: must be an array of model ids');
    refuses(() => readFallbackIds([], 'a'), 400, 'models: must name at least one model');
    refuses(() => readFallbackIds(['a', ''], undefined), 400, 'models[1]: must be a non-empty string');
    const six = ['a', 'b', 'c', 'd', 'e', 'f'];
    assert.equal(readFallbackIds(six.slice(0, MAX_FALLBACK_MODELS), undefined).length, 5);
    assert.equal(readFallbackIds([...six.slice(0, 5), 'a'], undefined).length, 5, 'duplicates do not count');
    refuses(() => readFallbackIds(six.slice(1), 'a'), 400, 'models: at most 5 different models, `model` included');
  });
});

describe('routeFallbackList', () => {
  it('routes each model in turn, each executor billed as its model, held as the dearest of every price and limit', () => {
    const r = routeFallbackList(catalog, [model('svc-cheap'), model('svc-dear')], hi, () => {});
    assert.equal(r.fallbackList, true);
    assert.equal(r.requested.id, 'svc-cheap');
    assert.deepEqual(r.executors.map((e) => [e.brand.id, e.billedAs?.id]), [['svc-cheap', 'svc-cheap'], ['svc-dear', 'svc-dear']]);
    assert.deepEqual(r.billed.pricing, { input: 3_000_000n, cachedInput: 500_000n, output: 2_000_000n, perImage: 0n });
    assert.deepEqual([r.billed.context, r.billed.maxOutput], [1000, 400]);
  });
  it('expands a pipeline under its own prices and lanes', () => {
    const r = routeFallbackList(catalog, [model('svc-cheap'), model('svc-pipe')], hi, () => {});
    assert.deepEqual(r.executors.map((e) => [e.brand.id, e.billedAs?.id, e.lane]), [['svc-cheap', 'svc-cheap', null], ['svc-cheap', 'svc-pipe', 'general'], ['svc-dear', 'svc-pipe', 'general']]);
  });
  it('leaves out a model without an upstream or refused by the check; when every one is, the first refusal', () => {
    const notDear = (m: ModelConfig) => {
      if (m.id === 'svc-dear') throw badRequest('tools: model svc-dear does not support tools');
    };
    const r = routeFallbackList(catalog, [model('svc-off'), model('svc-dear'), model('svc-cheap')], hi, notDear);
    assert.deepEqual(r.executors.map((e) => e.brand.id), ['svc-cheap']);
    assert.equal(r.billed, model('svc-cheap'), 'held as the one model that can serve');
    refuses(() => routeFallbackList(catalog, [model('svc-dear'), model('svc-off')], hi, notDear), 400, 'tools: model svc-dear does not support tools');
    refuses(() => routeFallbackList(catalog, [model('svc-off'), model('svc-dear')], hi, notDear), 503, 'model svc-off is not available');
  });
});
