import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildCatalog } from '../../config/catalog.ts';
import { HttpError } from '../../shared/errors.ts';
import { routeModel } from './route-model.ts';

function catalogWith(env: Record<string, string>) {
  return buildCatalog(
    {
      providers: [
        { id: 'a', type: 'openai', base_url: 'https://a.example/v1', api_key: '${A_KEY}' },
        { id: 'b', type: 'anthropic', base_url: 'https://b.example', api_key: '${B_KEY}' },
      ],
      models: [
        { id: 'svc-fast', type: 'chat', max_output: 900000, deployments: [{ provider: 'a', model: 'm' }] },
        { id: 'svc-pro', type: 'chat', max_output: 1000, deployments: [{ provider: 'b', model: 'm' }] },
        { id: 'svc-vision', type: 'chat', capabilities: { vision: true }, deployments: [{ provider: 'b', model: 'v' }] },
        {
          id: 'svc-lanes',
          type: 'chat',
          max_output: 32768,
          capabilities: { vision: true },
          pipeline: { code: 'svc-pro', vision: 'svc-vision', general: 'svc-fast' },
        },
      ],
    },
    env,
  );
}

describe('routeModel (interim pipeline routing)', () => {
  it('serves a model with deployments itself', () => {
    const c = catalogWith({ A_KEY: 'x' });
    const fast = c.models.get('svc-fast')!;
    const r = routeModel(c, fast, { images: false });
    assert.equal(r.served, fast);
    assert.equal(r.upstreamModel, fast);
    assert.equal(r.lane, null);
  });

  it('sends a pipeline to its general lane, under the requested brand id and the tighter output limit', () => {
    const c = catalogWith({ A_KEY: 'x', B_KEY: 'y' });
    const lanes = c.models.get('svc-lanes')!;
    const r = routeModel(c, lanes, { images: false });
    assert.equal(r.lane, 'general');
    assert.equal(r.served.id, 'svc-fast');
    assert.equal(r.requested, lanes);
    assert.equal(r.upstreamModel.id, 'svc-lanes');
    assert.equal(r.upstreamModel.maxOutput, 32768);
    assert.deepEqual(r.upstreamModel.deployments, c.models.get('svc-fast')!.deployments);
  });

  it('falls back to the first available lane when the general one is not available', () => {
    const c = catalogWith({ B_KEY: 'y' });
    const r = routeModel(c, c.models.get('svc-lanes')!, { images: false });
    assert.equal(r.lane, 'code');
    assert.equal(r.served.id, 'svc-pro');
    assert.equal(r.upstreamModel.maxOutput, 1000, 'the lane model allows less than the brand');
  });

  it('sends images to a lane whose model can see them', () => {
    const c = catalogWith({ A_KEY: 'x', B_KEY: 'y' });
    const r = routeModel(c, c.models.get('svc-lanes')!, { images: true });
    assert.equal(r.lane, 'vision');
    assert.equal(r.served.id, 'svc-vision');
  });

  it('answers 503 when no lane can serve the request', () => {
    const c = catalogWith({ A_KEY: 'x' });
    assert.throws(
      () => routeModel(c, c.models.get('svc-lanes')!, { images: true }),
      (e: unknown) => e instanceof HttpError && e.status === 503 && e.message === 'model svc-lanes is not available',
    );
  });
});
