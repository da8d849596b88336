import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { startTestApp, type TestApp } from './helpers/app.ts';

/**
 * Errors, limits and authentication across both APIs, session 29: what the market's per-address
 * limit counts and what `/admin` tells a caller without the token, over real HTTP
 * (docs/api-decisions.md, "Errors and limits: session 29 audit").
 */

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
}

/** A request sent as written: fetch would normalize a path that starts with `//`. */
function raw(base: string, method: string, path: string, headers: Record<string, string> = {}, body?: string): Promise<Answer> {
  const u = new URL(base);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: u.hostname, port: u.port, method, path, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => void (text += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text === '' ? null : (JSON.parse(text) as unknown) }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('errors and limits (session 29)', () => {
  let t: TestApp;
  let ip = 0;
  /** Each test from an address of its own, so windows do not mix. */
  const address = () => `10.29.${Math.floor(++ip / 250)}.${(ip % 250) + 1}`;
  const LIMIT = 6;

  before(async () => {
    t = await startTestApp({ env: { RATE_LIMIT_MARKET_PER_MINUTE: String(LIMIT), TRUST_PROXY: '1' } });
    await t.listen();
  });
  after(() => t.close());

  describe('market: every request of an address counts against its 200 a minute', () => {
    it('unknown routes, methods a route does not take and empty segments count, carry the headers and meet the 429', async () => {
      const from = { 'x-forwarded-for': address(), 'content-type': 'application/json' };
      const probes: [string, string, string?][] = [
        ['GET', '/api/no-such-route'],
        ['DELETE', '/api/markets'],
        ['POST', '/api/nope', '{'],
        ['GET', '/api/markets//'],
        ['GET', '//api/markets'],
        ['GET', '/api'],
      ];
      assert.equal(probes.length, LIMIT);
      for (const [i, [method, path, body]] of probes.entries()) {
        const r = await raw(t.url, method, path, from, body);
        assert.deepEqual({ status: r.status, body: r.body }, { status: 404, body: { success: false, error: 'Not found' } }, `${method} ${path}`);
        assert.equal(r.headers['x-ratelimit-limit-requests'], String(LIMIT), `${method} ${path}`);
        assert.equal(r.headers['x-ratelimit-remaining-requests'], String(LIMIT - 1 - i), `${method} ${path}`);
      }
      // The window is spent by probes alone: a real route and another unknown one are refused.
      for (const path of ['/api/markets', '/api/still-no-such-route', '//api/x']) {
        const r = await raw(t.url, 'GET', path, from);
        assert.deepEqual({ status: r.status, body: r.body }, { status: 429, body: { success: false, error: 'Rate limit exceeded' } }, path);
        const retry = Number(r.headers['retry-after']);
        assert.ok(Number.isInteger(retry) && retry >= 1 && retry <= 60, `${path}: retry-after ${retry}`);
        assert.equal(r.headers['x-ratelimit-remaining-requests'], '0');
      }
      // Another address is not affected.
      assert.equal((await raw(t.url, 'GET', '/api/markets', { 'x-forwarded-for': address() })).status, 200);
    });

    it('an unknown route\'s 404 carries the market\'s CORS headers, as every other answer of /api does', async () => {
      const r = await raw(t.url, 'GET', '/api/no-such-route', { 'x-forwarded-for': address(), origin: 'https://page.example' });
      assert.equal(r.status, 404);
      assert.equal(r.headers['access-control-allow-origin'], '*');
      // An OPTIONS that is no preflight is still the unknown route, in the market's shape.
      const o = await raw(t.url, 'OPTIONS', '/api/no-such-route', { 'x-forwarded-for': address() });
      assert.deepEqual({ status: o.status, body: o.body }, { status: 404, body: { success: false, error: 'Not found' } });
    });
  });

  describe('/admin: 401 before anything else without the admin token', () => {
    const unauthorized = { status: 401, body: { error: 'unauthorized' } };

    it('an unknown path, the bare prefix and a method a route does not take are 401 without the token, 404 with it', async () => {
      const probes: [string, string][] = [
        ['GET', '/admin/no-such-route'],
        ['GET', '/admin/accounts/1/no-such-thing'],
        ['POST', '/admin/secret-backup'],
        ['DELETE', '/admin/whoami'],
        ['GET', '/admin'],
        ['GET', '/admin/'],
      ];
      for (const [method, path] of probes) {
        for (const headers of [{}, { authorization: 'Bearer wrong-token' }, { authorization: 'Basic dGVzdA==' }] as Record<string, string>[]) {
          const r = await raw(t.url, method, path, headers);
          assert.deepEqual({ status: r.status, body: r.body }, unauthorized, `${method} ${path} ${JSON.stringify(headers)}`);
        }
        const r = await raw(t.url, method, path, t.admin);
        assert.deepEqual({ status: r.status, body: r.body }, { status: 404, body: { error: `not found: ${method} ${path}` } }, `${method} ${path}`);
      }
      // A known path answers the same 401 without the token: nothing tells the two apart.
      const known = await raw(t.url, 'GET', '/admin/whoami');
      assert.deepEqual({ status: known.status, body: known.body }, unauthorized);
    });

    it('an unknown admin path is 401 whatever its body: malformed, oversized or of another type', async () => {
      for (const [type, body] of [['application/json', '{'], ['text/xml', '<a/>'], ['application/json', JSON.stringify({ pad: 'x'.repeat(2_000_000) })]]) {
        const r = await raw(t.url, 'POST', '/admin/no-such-route', { 'content-type': type! }, body);
        assert.deepEqual({ status: r.status, body: r.body }, unauthorized, `${type} ${body!.length}`);
      }
    });
  });
});
