import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildCatalog } from '../../config/catalog.ts';
import { resolveModel } from '../http/resolve-model.ts';
import { isModelAvailable } from './model-availability.ts';
import { HttpError } from '../../shared/errors.ts';

function catalogWith(env: Record<string, string>) {
  return buildCatalog(
    {
      providers: [
        { id: 'a', type: 'openai', base_url: 'https://a.example/v1', api_key: '${A_KEY}' },
        { id: 'b', type: 'anthropic', base_url: 'https://b.example', api_key: '${B_KEY}' },
      ],
      models: [
        { id: 'svc-one', type: 'chat', deployments: [{ provider: 'a', model: 'm' }] },
        { id: 'svc-two', type: 'chat', deployments: [{ provider: 'b', model: 'm' }, { provider: 'a', model: 'm' }] },
        { id: 'svc-three', type: 'chat', deployments: [{ provider: 'b', model: 'm' }] },
        { id: 'svc-lanes', type: 'chat', pipeline: { general: 'svc-one', code: 'svc-three' } },
        { id: 'svc-auto', type: 'chat' },
        { id: 'svc-embed', type: 'embedding', deployments: [{ provider: 'a', model: 'e' }] },
      ],
      auto: { candidates: ['svc-three'] },
    },
    env,
  );
}

describe('model availability', () => {
  it('follows whether a deployment has a configured provider, fallbacks included', () => {
    const c = catalogWith({ A_KEY: 'x' });
    const avail = (id: string) => isModelAvailable(c, c.models.get(id)!);
    assert.equal(avail('svc-one'), true);
    assert.equal(avail('svc-two'), true, 'through its fallback');
    assert.equal(avail('svc-three'), false);
    assert.equal(avail('svc-lanes'), true, 'one lane is enough');
    assert.equal(avail('svc-auto'), false, 'its only candidate is not available');
    const none = catalogWith({});
    assert.equal(isModelAvailable(none, none.models.get('svc-lanes')!), false);
  });

  it('resolves a model or answers 404, 400 or 503', () => {
    const c = catalogWith({ B_KEY: 'x' });
    assert.equal(resolveModel(c, 'svc-three', 'messages').id, 'svc-three');
    assert.equal(resolveModel(c, 'svc-auto', 'chat.completions').id, 'svc-auto');
    const fails = (id: string, endpoint: Parameters<typeof resolveModel>[2], status: number, message: string) =>
      assert.throws(() => resolveModel(c, id, endpoint), (e: unknown) => e instanceof HttpError && e.status === status && e.message === message);
    fails('gpt-4', 'chat.completions', 404, 'model not found: gpt-4');
    fails('svc-embed', 'chat.completions', 400, 'model svc-embed does not support /v1/chat/completions');
    fails('svc-three', 'embeddings', 400, 'model svc-three does not support /v1/embeddings');
    fails('svc-embed', 'embeddings', 503, 'model svc-embed is not available');
  });
});
