import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { mapUpstreamStatus } from './map-upstream-status.ts';

describe('mapUpstreamStatus', () => {
  it('passes request errors through without retry', () => {
    assert.deepEqual(mapUpstreamStatus(400), { status: 400, retryable: false });
    assert.deepEqual(mapUpstreamStatus(422), { status: 400, retryable: false });
    assert.deepEqual(mapUpstreamStatus(413), { status: 413, retryable: false });
    assert.deepEqual(mapUpstreamStatus(418), { status: 400, retryable: false });
  });

  it('retries rate limits, overload and server errors', () => {
    assert.deepEqual(mapUpstreamStatus(429), { status: 429, retryable: true });
    assert.deepEqual(mapUpstreamStatus(500), { status: 502, retryable: true });
    assert.deepEqual(mapUpstreamStatus(502), { status: 502, retryable: true });
    assert.deepEqual(mapUpstreamStatus(503), { status: 503, retryable: true });
    assert.deepEqual(mapUpstreamStatus(529), { status: 503, retryable: true });
    assert.deepEqual(mapUpstreamStatus(504), { status: 504, retryable: true });
    assert.deepEqual(mapUpstreamStatus(408), { status: 504, retryable: true });
  });

  it('hides upstream credential, billing and model-name problems behind a gateway error', () => {
    for (const s of [401, 402, 403, 404]) {
      const m = mapUpstreamStatus(s);
      assert.equal(m.status, 502);
      assert.equal(m.retryable, true);
      assert.ok(m.message);
    }
  });
});
