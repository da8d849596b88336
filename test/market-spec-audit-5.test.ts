import assert from 'node:assert/strict';
import { request } from 'node:http';
import { describe, it } from 'node:test';
import { marketAuditSuite } from './helpers/market-socket.ts';
import { tradeBody } from './helpers/market-client.ts';

/**
 * The fifth audit of the market API against market-api.md (docs/api-decisions.md, "Market API:
 * fifth audit"), over a real socket, as a client meets it.
 */

interface RawAnswer {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  readonly body: any;
}

describe('market API against market-api.md (fifth audit, over HTTP)', () => {
  const { base, call, trader, market: marketIn } = marketAuditSuite();
  const notFound = { status: 404, body: { success: false, error: 'Not found' } };

  /** A request with the path exactly as given (fetch and URL would read `//api` as a host). */
  function raw(method: string, path: string, body?: unknown): Promise<RawAnswer> {
    const { hostname, port } = new URL(base());
    const payload = body === undefined ? undefined : JSON.stringify(body);
    return new Promise((resolve, reject) => {
      const req = request({ host: hostname, port, method, path, headers: payload === undefined ? {} : { 'content-type': 'application/json' } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) }));
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end(payload);
    });
  }

  it('answers a market path that starts with two slashes 404 Not found in the market shape, as any path with an empty segment', async () => {
    const m = await marketIn('audit5');
    const w = await trader('5');
    for (const path of [
      '//api/markets',
      '//api/markets?page=1',
      '//api/markets/',
      `//api/markets/${m.id}`,
      `//api/markets/${m.id}/price`,
      '//api/events',
      `//api/pool/balance/${w.wallet}`,
      '//api/time',
      '///api/markets',
      '//api',
      '//api/',
      '//api?x=1',
    ]) {
      const r = await raw('GET', path);
      assert.deepEqual({ status: r.status, body: r.body }, notFound, path);
      // Like every request under /api, counted against the market's rate limit
      // (docs/api-decisions.md, "Errors and limits: session 29 audit").
      assert.notEqual(r.headers['x-ratelimit-remaining-requests'], undefined, path);
    }
    // Signed routes too, before any credential is looked at; no money moves.
    const trade = await raw('POST', '//api/pool/trade', tradeBody(w.wallet, m.id, 'yes', 1));
    assert.deepEqual({ status: trade.status, body: trade.body }, notFound);
    assert.equal((await call('GET', `/api/pool/balance/${w.wallet}`)).body.data.balance, 5);
    // The same paths with one slash are served as before.
    assert.equal((await raw('GET', '/api/markets')).status, 200);
    assert.equal((await raw('GET', `/api/markets/${m.id}`)).body.data.id, m.id);
  });

  it('leaves the other surfaces’ double-slash paths in their own shape', async () => {
    const v1 = await raw('GET', '//v1/models');
    assert.deepEqual({ status: v1.status, body: v1.body }, { status: 404, body: { error: 'not found: GET //v1/models' } });
    const apiary = await raw('GET', '//apiary');
    assert.deepEqual({ status: apiary.status, body: apiary.body }, { status: 404, body: { error: 'not found: GET //apiary' } });
  });
});
