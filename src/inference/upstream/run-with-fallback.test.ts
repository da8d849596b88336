import assert from 'node:assert/strict';
import { describe, it, mock } from 'node:test';
import { buildCatalog } from '../../config/catalog.ts';
import { createDeploymentHealth } from './deployment-health.ts';
import { backoffMs, orderDeployments, runWithFallback, type RequestBudget } from './run-with-fallback.ts';
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
      { id: 'svc-y', type: 'chat', deployments: [{ provider: 'b', model: 'y1' }] },
      { id: 'svc-dup', type: 'chat', deployments: [{ provider: 'a', model: 'm1' }] },
      {
        id: 'svc-even', type: 'chat',
        deployments: [{ provider: 'a', model: 'e1', priority: 0, weight: 3 }, { provider: 'b', model: 'e2', priority: 0, weight: 1 }],
      },
    ],
    resilience: { max_retries: 1, backoff_base_ms: 1, backoff_max_ms: 2, retry_after_cap_ms: 50, max_attempts: 4, breaker: { consecutive_failures: 100 } },
  },
  {},
);
const model = (id: string) => catalog.models.get(id)!;

function deps() {
  const health = createDeploymentHealth({ settings: catalog.resilience.breaker, deployments: [], now: Date.now });
  return { settings: catalog.resilience, health, now: Date.now, random: Math.random };
}

const fail = (status: number, upstreamStatus: number, extra: { retryAfterMs?: number } = {}) =>
  new UpstreamError(status, 'failed', status !== 400, { upstreamStatus, upstreamMessage: 'x', ...extra });

describe('runWithFallback', () => {
  it('returns the first success with the deployment that served it, skipping unconfigured ones', async () => {
    const tried: string[] = [];
    const r = await runWithFallback(deps(), [model('svc-x')], async (t) => {
      tried.push(t.deployment.model);
      if (t.deployment.model === 'm1') throw fail(503, 503);
      return 'ok';
    });
    assert.deepEqual(tried, ['m1', 'm1', 'm3'], 'one retry on m1, m2 is not configured');
    assert.equal(r.target.deployment.model, 'm3');
  });

  it('goes on to the next model of the chain, within one attempt budget', async () => {
    const tried: string[] = [];
    await assert.rejects(
      runWithFallback(deps(), [model('svc-x'), model('svc-y')], async (t) => {
        tried.push(`${t.model.id}:${t.deployment.model}`);
        throw fail(502, 500);
      }),
      (e: unknown) => e instanceof UpstreamError && e.status === 502,
    );
    assert.deepEqual(tried, ['svc-x:m1', 'svc-x:m1', 'svc-x:m3', 'svc-y:y1'], 'max_attempts 4: m3 is not retried, as that would take the call svc-y gets');
  });

  it('calls a deployment under the first model of the chain that has it only, and counts it once for the retry budget', async () => {
    const tried: string[] = [];
    await assert.rejects(
      runWithFallback(deps(), [model('svc-dup'), model('svc-x'), model('svc-y')], async (t) => {
        tried.push(`${t.model.id}:${t.deployment.model}`);
        throw fail(502, 500);
      }),
      (e: unknown) => e instanceof UpstreamError && e.status === 502,
    );
    // max_attempts 4: m1 is retried, as only m3 and y1 are still ahead (svc-x's m1 is the same deployment).
    assert.deepEqual(tried, ['svc-dup:m1', 'svc-dup:m1', 'svc-x:m3', 'svc-y:y1']);
  });

  it('stops at a request error and rethrows foreign errors', async () => {
    const tried: string[] = [];
    await assert.rejects(
      runWithFallback(deps(), [model('svc-x')], async (t) => {
        tried.push(t.deployment.model);
        throw fail(400, 400);
      }),
      (e: unknown) => e instanceof UpstreamError && e.status === 400,
    );
    assert.deepEqual(tried, ['m1']);
    await assert.rejects(runWithFallback(deps(), [model('svc-x')], async () => Promise.reject(new DOMException('aborted', 'AbortError'))), { name: 'AbortError' });
  });

  it("moves on at once when a 429's retry-after is past the cap", async () => {
    const tried: string[] = [];
    await runWithFallback(deps(), [model('svc-x')], async (t) => {
      tried.push(t.deployment.model);
      if (t.deployment.model === 'm1') throw fail(429, 429, { retryAfterMs: 60_000 });
      return 'ok';
    });
    assert.deepEqual(tried, ['m1', 'm3']);
  });

  it('answers 503 when nothing can be tried', async () => {
    await assert.rejects(
      runWithFallback(deps(), [{ ...model('svc-x'), deployments: model('svc-x').deployments.filter((d) => !d.provider.configured) }], async () => 'never'),
      (e: unknown) => e instanceof UpstreamError && e.status === 503 && e.message === 'model svc-x is not available',
    );
  });

  it('balances one priority by weight, and prefers the deployment with fewer calls in flight', () => {
    const d = deps();
    const even = model('svc-even').deployments;
    let first = 0;
    let seed = 1;
    const random = () => ((seed = (seed * 16807) % 2147483647) / 2147483647);
    for (let i = 0; i < 4000; i++) if (orderDeployments(even, d.health, random)[0]!.model === 'e1') first++;
    assert.ok(first > 2700 && first < 3300, `weight 3:1 gives about 3000 of 4000, got ${first}`);
    const end = [d.health.begin(even[0]!), d.health.begin(even[0]!), d.health.begin(even[0]!), d.health.begin(even[0]!)];
    assert.equal(orderDeployments(even, d.health, random)[0]!.model, 'e2', '4 in flight on weight 3 is more than 0 on weight 1');
    for (const e of end) e('success');
  });

  it('backs off exponentially with full jitter, capped', () => {
    const s = { ...catalog.resilience, backoffBaseMs: 100, backoffMaxMs: 1000 };
    assert.equal(backoffMs(0, s, () => 0.999), 99);
    assert.equal(backoffMs(2, s, () => 0.999), 399);
    assert.equal(backoffMs(10, s, () => 0.999), 999);
    assert.equal(backoffMs(3, s, () => 0), 0);
  });

  it('gives a call the deadline only when the budget left is shorter than its own timeouts, and disarms it once the call resolved', async () => {
    const settings = { ...catalog.resilience, maxTotalMs: 200_000 };
    const long = await runWithFallback({ ...deps(), settings }, [model('svc-y')], async (_t, signal) => signal);
    assert.equal(long.result, undefined, 'the provider timeouts (120 s) come first: the caller\'s signal, here none');
    mock.timers.enable({ apis: ['setTimeout'] });
    try {
      const short = await runWithFallback({ ...deps(), settings: { ...catalog.resilience, maxTotalMs: 30 } }, [model('svc-y')], async (_t, signal) => signal);
      mock.timers.tick(60);
      assert.equal(short.result!.aborted, false, 'a call that resolved (a started stream) is not cut');
    } finally {
      mock.timers.reset();
    }
  });

  it('cuts the call in flight when the budget runs out: a timeout for the breaker, and no call after it', async () => {
    const tried: string[] = [];
    const outcomes: string[] = [];
    const d = deps();
    const health = { ...d.health, begin: (dep: Parameters<typeof d.health.begin>[0]) => {
      const end = d.health.begin(dep);
      return (o: Parameters<typeof end>[0]) => (outcomes.push(o), end(o));
    } };
    await assert.rejects(
      runWithFallback({ ...d, health, settings: { ...catalog.resilience, maxTotalMs: 30 } }, [model('svc-x'), model('svc-y')], (t, signal) => {
        tried.push(t.deployment.model);
        return new Promise((_, reject) => signal!.addEventListener('abort', () => reject(signal!.reason)));
      }),
      (e: unknown) => e instanceof UpstreamError && e.status === 504 && e.retryable,
    );
    assert.deepEqual([tried, outcomes], [['m1'], ['timeout']]);
  });

  it('one budget over the calls of a request: a later call gets what is left, none once it is spent', async () => {
    let now = 1_000;
    const d = { ...deps(), now: () => now, settings: { ...catalog.resilience, maxTotalMs: 100 } };
    const budget: RequestBudget = { startedAt: null };
    await runWithFallback(d, [model('svc-y')], async () => {
      now += 60;
      return 'round 1';
    }, undefined, budget);
    assert.equal(budget.startedAt, 1_000, 'the budget starts at the first call');
    // 40 ms left: shorter than the deployment's timeouts, so the call runs under the deadline.
    const second = await runWithFallback(d, [model('svc-y')], async (_t, signal) => signal, undefined, budget);
    assert.notEqual(second.result, undefined, 'the second call runs under a deadline of what is left');
    now += 40;
    let called = false;
    await assert.rejects(
      runWithFallback(d, [model('svc-y')], async () => {
        called = true;
        return 'late';
      }, undefined, budget),
      (e: unknown) => e instanceof UpstreamError && e.status === 504 && e.message === 'no upstream answered within the time the request may take',
    );
    assert.equal(called, false, 'no call starts once the budget is spent');
  });
});
