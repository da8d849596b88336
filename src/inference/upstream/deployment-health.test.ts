import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildCatalog, type Deployment, type ResilienceSettings } from '../../config/catalog.ts';
import { createDeploymentHealth, type BreakerStore } from './deployment-health.ts';
import { waitFor } from '../../../test/helpers/wait.ts';

const catalog = buildCatalog(
  {
    providers: [{ id: 'p', type: 'openai', base_url: 'http://p.test/v1', api_key: 'k' }],
    models: [{ id: 'svc-x', type: 'chat', deployments: [{ provider: 'p', model: 'm1' }, { provider: 'p', model: 'm2' }] }],
    resilience: { breaker: { consecutive_failures: 3, failure_ratio: 0.5, min_requests: 10, window_ms: 1000, cooldown_ms: 500, sync_interval_ms: 10 } },
  },
  {},
);
const [d1, d2] = catalog.models.get('svc-x')!.deployments as [Deployment, Deployment];
const settings: ResilienceSettings['breaker'] = catalog.resilience.breaker;

function setup(store?: BreakerStore) {
  let now = 1_000_000;
  const health = createDeploymentHealth({ settings, deployments: [d1, d2], now: () => now, store: store ?? null });
  const call = (d: Deployment, outcome: Parameters<ReturnType<typeof health.begin>>[0]) => {
    assert.ok(health.admits(d), 'admitted');
    health.begin(d)(outcome);
  };
  return { health, call, advance: (ms: number) => void (now += ms), state: (d: Deployment) => health.snapshot().find((s) => s.deployment === d)! };
}

describe('deployment health (circuit breaker)', () => {
  it('opens after the configured consecutive failures; a success in between resets the count', () => {
    const { health, call, state } = setup();
    call(d1, 'server_error');
    call(d1, 'timeout');
    call(d1, 'success');
    call(d1, 'connection');
    call(d1, 'rate_limited');
    assert.equal(state(d1).state, 'closed');
    call(d1, 'refused');
    assert.equal(state(d1).state, 'open');
    assert.equal(health.admits(d1), false);
    assert.equal(health.admits(d2), true, 'per deployment');
  });

  it('opens on the failure ratio once the window saw the minimum of calls', () => {
    const { call, state } = setup();
    for (let i = 0; i < 9; i++) call(d1, i % 2 === 0 ? 'server_error' : 'success');
    assert.equal(state(d1).state, 'closed', 'below the minimum');
    call(d1, 'server_error');
    assert.equal(state(d1).state, 'open', '6 of 10 failed');
  });

  it('does not count client errors and aborts as failures', () => {
    const { call, state } = setup();
    for (let i = 0; i < 10; i++) call(d1, i % 2 === 0 ? 'client_error' : 'aborted');
    assert.equal(state(d1).state, 'closed');
    assert.equal(state(d1).totals.failures, 0);
  });

  it('lets one probe through after the cooldown: failure reopens, success closes', () => {
    const { health, call, advance, state } = setup();
    for (let i = 0; i < 3; i++) call(d1, 'server_error');
    advance(499);
    assert.equal(health.admits(d1), false);
    assert.equal(health.takesCalls(d1), false, 'open');
    advance(1);
    assert.equal(health.takesCalls(d1), true, 'half-open: a probe may go');
    assert.equal(health.takesCalls(d1), true, 'asking does not take the probe');
    assert.equal(health.admits(d1), true, 'the probe');
    assert.equal(health.takesCalls(d1), false, 'the probe is out');
    assert.equal(health.admits(d1), false, 'only one probe at a time');
    health.begin(d1)('server_error');
    assert.equal(state(d1).state, 'open');
    advance(500);
    assert.equal(health.admits(d1), true);
    health.begin(d1)('aborted');
    assert.equal(health.admits(d1), true, 'an aborted probe leaves the next call to probe');
    const end = health.begin(d1);
    assert.equal(state(d1).inFlight, 1);
    end('success');
    assert.equal(state(d1).state, 'closed');
    assert.equal(state(d1).inFlight, 0);
  });

  it('shares opened breakers through the store: another instance stays away until the cooldown', async () => {
    const shared = new Map<string, number>();
    const store: BreakerStore = {
      open: async (k, until) => void shared.set(k, until),
      close: async (k) => void shared.delete(k),
      read: async (keys) => keys.map((k) => shared.get(k) ?? null),
    };
    const one = setup(store);
    const two = setup(store);
    for (let i = 0; i < 3; i++) one.call(d1, 'connection');
    assert.ok(shared.has(d1.key));
    await waitFor(() => two.state(d1).state !== 'closed', { message: 'the other instance never read the opened breaker from the store' });
    assert.equal(two.state(d1).state, 'open');
    assert.equal(two.state(d1).openedElsewhere, true);
    assert.equal(two.health.admits(d1), false);
    two.advance(500);
    assert.equal(two.health.admits(d1), true, 'the other instance probes after the cooldown too');
    two.health.begin(d1)('success');
    assert.equal(shared.has(d1.key), false, 'a closed breaker is cleared for everyone');
    one.health.close();
    two.health.close();
  });
});
