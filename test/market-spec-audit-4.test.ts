import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { marketAuditSuite } from './helpers/market-socket.ts';
import { tradeBody } from './helpers/market-client.ts';

/**
 * The fourth audit of the market API against market-api.md (docs/api-decisions.md, "Market API:
 * fourth audit"), over a real socket with fetch, as a client meets it.
 */

describe('market API against market-api.md (fourth audit, over HTTP)', () => {
  const { base, call, send, trader, market: marketIn } = marketAuditSuite();
  const notFound = { status: 404, body: { success: false, error: 'Not found' } };

  it('answers a market path with an empty segment (a double slash) 404 Not found, wherever the empty segment is', async () => {
    const m = await marketIn('audit4');
    const w = await trader('5');
    // A trailing double slash used to lose one slash to the trailing-slash rule and reach the route
    // with an empty parameter: 400 `Invalid id` for a request that named no id.
    for (const path of [
      '/api/markets//',
      '/api/markets//?page=1',
      '/api/markets///',
      '/api/events//',
      `/api/pool/balance//`,
      '/api/users//',
      '/api/markets//price',
      '/api/markets//history',
      `/api/portfolio//stats`,
      '/api/markets//1',
      `/api/markets/${m.id}//`,
      `/api/markets/${m.id}//price`,
      '/api//markets',
      '/api//',
    ]) {
      assert.deepEqual(await call('GET', path), notFound, path);
    }
    // Signed routes too, before any credential is looked at; no money moves.
    assert.deepEqual(await call('POST', '/api/pool/trade//', tradeBody(w.wallet, m.id, 'yes', 1)), notFound);
    assert.deepEqual(await send(w.viaKey, { method: 'POST', url: '/api//pool/trade', body: tradeBody(w.wallet, m.id, 'yes', 1) }), notFound);
    assert.equal((await call('GET', `/api/pool/balance/${w.wallet}`)).body.data.balance, 5);
    // Answered like any unknown route, which counts against the market's rate limit as every
    // request does (docs/api-decisions.md, "Errors and limits: session 29 audit").
    for (const path of ['/api/markets//', '/api/no-such-route']) {
      const r = await fetch(base() + path);
      assert.equal(r.status, 404);
      assert.notEqual(r.headers.get('x-ratelimit-remaining-requests'), null, path);
    }
    assert.notEqual((await fetch(`${base()}/api/markets`)).headers.get('x-ratelimit-remaining-requests'), null);
  });

  it('keeps one trailing slash as the path without it, and a double slash in the query is only text', async () => {
    const category = `audit4-${Math.random().toString(36).slice(2)}`;
    const m = await marketIn(category);
    assert.deepEqual(await call('GET', '/api/markets/'), await call('GET', '/api/markets'));
    assert.deepEqual(await call('GET', `/api/markets/${m.id}/`), await call('GET', `/api/markets/${m.id}`));
    const listed = await call('GET', `/api/markets/?category=${category}&q=a//b`);
    assert.equal(listed.status, 200, JSON.stringify(listed.body));
    assert.deepEqual(listed, await call('GET', `/api/markets?category=${category}&q=a//b`));
  });
});
