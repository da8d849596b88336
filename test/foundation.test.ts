import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import SwaggerParser from '@apidevtools/swagger-parser';
import { startTestApp, type TestApp } from './helpers/app.ts';

describe('foundation', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp({
      env: { BODY_LIMIT_BYTES: '2048' },
      beforeReady: (app) => {
        for (const prefix of ['/api', '/v1', '/admin']) {
          app.post(`${prefix}/_probe`, async (req) => ({ got: req.body }));
        }
      },
    });
  });
  after(() => t.close());

  it('answers /healthz and /readyz', async () => {
    assert.equal((await t.app.inject('/healthz')).json().status, 'ok');
    const ready = await t.app.inject('/readyz');
    assert.equal(ready.statusCode, 200);
    assert.equal(ready.json().status, 'ready');
  });

  it('echoes a given x-request-id and generates one otherwise', async () => {
    const given = await t.app.inject({ url: '/healthz', headers: { 'x-request-id': 'abc-123' } });
    assert.equal(given.headers['x-request-id'], 'abc-123');
    const made = await t.app.inject('/healthz');
    assert.match(String(made.headers['x-request-id']), /^[0-9a-f-]{36}$/);
    const hostile = await t.app.inject({ url: '/healthz', headers: { 'x-request-id': 'bad id\u0001' } });
    assert.notEqual(hostile.headers['x-request-id'], 'bad id\u0001');
  });

  it('exposes Prometheus metrics by route and status', async () => {
    await t.app.inject('/healthz');
    const m = await t.app.inject('/metrics');
    assert.equal(m.statusCode, 200);
    assert.match(m.body, /http_requests_total\{method="GET",route="\/healthz",status="200"\} \d+/);
    assert.match(m.body, /http_request_duration_seconds_bucket\{/);
  });

  it('refuses the admin API without the right token', async () => {
    const none = await t.app.inject('/admin/whoami');
    assert.equal(none.statusCode, 401);
    assert.deepEqual(none.json(), { error: 'unauthorized' });
    const wrong = await t.app.inject({ url: '/admin/whoami', headers: { authorization: 'Bearer nope-nope-nope-nope' } });
    assert.equal(wrong.statusCode, 401);
    const ok = await t.app.inject({ url: '/admin/whoami', headers: t.admin });
    assert.equal(ok.statusCode, 200);
  });

  it('answers unknown routes in each surface shape', async () => {
    const market = await t.app.inject('/api/nothing-here');
    assert.equal(market.statusCode, 404);
    assert.deepEqual(market.json(), { success: false, error: 'Not found' });
    const inference = await t.app.inject('/v1/nothing-here');
    assert.equal(inference.statusCode, 404);
    assert.deepEqual(Object.keys(inference.json()), ['error']);
    const admin = await t.app.inject({ url: '/admin/nothing', headers: t.admin });
    assert.equal(admin.statusCode, 404);
    assert.equal(typeof admin.json().error, 'string');
  });

  it('answers malformed JSON with 400 in each surface shape', async () => {
    const send = (url: string) =>
      t.app.inject({
        method: 'POST',
        url,
        headers: { 'content-type': 'application/json', ...t.admin },
        payload: '{"a":',
      });
    const market = await send('/api/_probe');
    assert.equal(market.statusCode, 400);
    assert.deepEqual(market.json(), { success: false, error: 'malformed JSON body' });
    const inference = await send('/v1/_probe');
    assert.equal(inference.statusCode, 400);
    assert.deepEqual(inference.json(), { error: 'malformed JSON body' });
    const admin = await send('/admin/_probe');
    assert.deepEqual(admin.json(), { error: 'malformed JSON body' });
  });

  it('answers too-large bodies with 413 in each surface shape', async () => {
    const payload = JSON.stringify({ x: 'y'.repeat(5000) });
    const market = await t.app.inject({ method: 'POST', url: '/api/_probe', headers: { 'content-type': 'application/json' }, payload });
    assert.equal(market.statusCode, 413);
    assert.deepEqual(market.json(), { success: false, error: 'request body too large' });
    const inference = await t.app.inject({ method: 'POST', url: '/v1/_probe', headers: { 'content-type': 'application/json' }, payload });
    assert.equal(inference.statusCode, 413);
    assert.deepEqual(inference.json(), { error: 'request body too large' });
  });

  it('serves GET /api/time in the market envelope', async () => {
    // The server reads the clock between these two readings, however long either step took.
    const before = Date.now();
    const r = await t.app.inject('/api/time');
    const after = Date.now();
    const body = r.json();
    assert.equal(body.success, true);
    const at = Date.parse(body.data.iso);
    assert.ok(at >= before && at <= after, `iso ${body.data.iso} is not between ${new Date(before).toISOString()} and ${new Date(after).toISOString()}`);
    assert.equal(body.data.time, Math.floor(at / 1000), 'time is the same instant in whole seconds');
  });

  it('publishes a valid OpenAPI 3 document and the docs page', async () => {
    const r = await t.app.inject('/openapi.json');
    assert.equal(r.statusCode, 200);
    const doc = r.json();
    assert.match(doc.openapi, /^3\./);
    await SwaggerParser.validate(structuredClone(doc));
    const docs = await t.app.inject('/docs/');
    assert.ok(docs.statusCode === 200 || docs.statusCode === 302);
  });
});
