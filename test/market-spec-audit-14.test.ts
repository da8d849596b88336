import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { startMarketOverSocket, marketOverSocket } from './helpers/market-socket.ts';
import type { TestApp } from './helpers/app.ts';
import { assertBooksBalanced } from './helpers/market.ts';

/**
 * The fourteenth audit of the market API: what a user coming from Polymarket or Kalshi reaches
 * for (docs/api-decisions.md, "Market API: fourteenth audit"), over a real socket.
 */
describe('market API for a Polymarket/Kalshi user (fourteenth audit, over HTTP)', () => {
  let t: TestApp;
  let base: string;
  before(async () => {
    ({ t, base } = await startMarketOverSocket());
  });
  after(async () => {
    await t?.close();
  });
  afterEach(() => assertBooksBalanced(t.deps.db));

  const { call, admin, ok, market } = marketOverSocket(() => base);

  describe('event slugs in any case', () => {
    it('GET /api/events/:slug finds the event whatever the case of the slug in the URL', async () => {
      const tag = Math.random().toString(36).slice(2, 8);
      const ev = (await ok(admin('POST', '/admin/events', { title: `Election 2028 ${tag}`, category: 'audit14' }), 201)) as { id: number; slug: string };
      assert.equal(ev.slug, `election-2028-${tag}`);
      for (const asked of [ev.slug, ev.slug.toUpperCase(), `Election-2028-${tag}`]) {
        const a = await call('GET', `/api/events/${asked}`);
        assert.equal(a.status, 200, `${asked}: ${JSON.stringify(a.body)}`);
        assert.equal(a.body.data.id, ev.id);
        assert.equal(a.body.data.slug, ev.slug, 'the stored slug is answered');
      }
      assert.equal((await call('GET', `/api/events/Election-2028-${tag}-X`)).status, 404);
    });
  });
});
