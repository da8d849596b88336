import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildCatalog } from '../../config/catalog.ts';
import { tryDeployments } from './try-deployments.ts';
import { UpstreamError } from './upstream-error.ts';

const catalog = buildCatalog(
  {
    providers: [
      { id: 'a', type: 'openai', base_url: 'http://a.test/v1', api_key: 'k' },
      { id: 'off', type: 'openai', base_url: 'http://off.test/v1', api_key: '${UNSET_FOR_TEST}' },
      { id: 'b', type: 'anthropic', base_url: 'http://b.test', api_key: 'k' },
    ],
    models: [
      { id: 'svc-x', type: 'chat', deployments: [{ provider: 'a', model: 'm1' }, { provider: 'off', model: 'm2' }, { provider: 'b', model: 'm3' }] },
      { id: 'svc-none', type: 'chat', deployments: [{ provider: 'off', model: 'm2' }] },
    ],
  },
  {},
);
const x = catalog.models.get('svc-x')!;

describe('tryDeployments', () => {
  it('returns the first success with the deployment that served it', async () => {
    const r = await tryDeployments(x, async (t) => t.deployment.model);
    assert.deepEqual([r.result, r.target.deployment.provider.id], ['m1', 'a']);
  });

  it('falls back on retryable failures and skips unconfigured deployments', async () => {
    const tried: string[] = [];
    const r = await tryDeployments(x, async (t) => {
      tried.push(t.deployment.model);
      if (t.deployment.model === 'm1') throw new UpstreamError(503, 'overloaded', true);
      return 'ok';
    });
    assert.deepEqual(tried, ['m1', 'm3']);
    assert.equal(r.target.deployment.model, 'm3');
  });

  it('stops at a request error and rethrows foreign errors', async () => {
    const tried: string[] = [];
    await assert.rejects(
      tryDeployments(x, async (t) => {
        tried.push(t.deployment.model);
        throw new UpstreamError(400, 'bad request', false);
      }),
      (e) => e instanceof UpstreamError && e.status === 400,
    );
    assert.deepEqual(tried, ['m1']);
    await assert.rejects(tryDeployments(x, async () => Promise.reject(new DOMException('aborted', 'AbortError'))), { name: 'AbortError' });
  });

  it('throws the last failure when all fail, and 503 when none is configured', async () => {
    await assert.rejects(
      tryDeployments(x, async (t) => {
        throw new UpstreamError(t.deployment.model === 'm3' ? 504 : 502, t.deployment.model, true);
      }),
      (e) => e instanceof UpstreamError && e.status === 504 && e.message === 'm3',
    );
    await assert.rejects(
      tryDeployments(catalog.models.get('svc-none')!, async () => 'never'),
      (e) => e instanceof UpstreamError && e.status === 503 && e.message === 'model svc-none is not available',
    );
  });
});
