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
  describe('Polymarket\'s list filters active and closed', () => {
    it('maps active= and closed= onto status, combines them with status, refuses a bad boolean naming it, and caches each filter apart', async () => {
      const category = `pm14${Math.random().toString(36).slice(2, 8)}`;
      const active = await market(category);
      const pending = await market(category, { status: 'pending' });
      const resolved = await market(category);
      await ok(admin('POST', `/admin/markets/${resolved.id}/resolve`, { outcome: 'yes' }));
      const cancelled = await market(category);
      await ok(admin('POST', `/admin/markets/${cancelled.id}/cancel`));
      const list = async (query: string) => {
        const body = await ok(call('GET', `/api/markets?category=${category}&${query}`));
        const ids = (body.data as { id: number }[]).map((m) => m.id).sort((a, b) => a - b);
        assert.equal(body.total, ids.length, `${query}: total counts the same markets`);
        return ids;
      };
      const sorted = (...ms: { id: number }[]) => ms.map((m) => m.id).sort((a, b) => a - b);
      assert.deepEqual(await list(''), sorted(active, pending, resolved, cancelled));
      assert.deepEqual(await list('active=true'), sorted(active));
      assert.deepEqual(await list('active=false'), sorted(pending, resolved, cancelled));
      assert.deepEqual(await list('closed=true'), sorted(resolved, cancelled));
      assert.deepEqual(await list('closed=false'), sorted(active, pending));
      // Polymarket's usual "open markets" query.
      assert.deepEqual(await list('active=true&closed=false'), sorted(active));
      assert.deepEqual(await list('active=false&closed=false'), sorted(pending));
      assert.deepEqual(await list('active=false&closed=true'), sorted(resolved, cancelled));
      // With status: the markets that meet both; a contradiction is an empty list, not an error.
      assert.deepEqual(await list('status=resolved&closed=true'), sorted(resolved));
      assert.deepEqual(await list('status=pending&closed=false'), sorted(pending));
      assert.deepEqual(await list('status=active&active=true'), sorted(active));
      assert.deepEqual(await list('status=resolved&closed=false'), []);
      assert.deepEqual(await list('status=pending&active=true'), []);
      assert.deepEqual(await list('active=true&closed=true'), []);
      // The whole list (no category) obeys them too, its total from the counts table.
      const all = await ok(call('GET', '/api/markets?closed=true&limit=100'));
      assert.ok(all.data.every((m: { status: string }) => m.status === 'resolved' || m.status === 'cancelled'));
      assert.ok(all.total >= 2);
      const none = await ok(call('GET', '/api/markets?active=true&closed=true'));
      assert.deepEqual([none.data, none.total], [[], 0]);
      // Bad booleans are 400 naming the parameter.
      for (const [name, value] of [['active', 'yes'], ['active', 'TRUE'], ['active', ''], ['closed', '1'], ['closed', 'False']]) {
        assert.deepEqual(await call('GET', `/api/markets?${name}=${value}`), {
          status: 400,
          body: { success: false, error: `Invalid ${name}: must be one of true, false` },
        }, `${name}=${value}`);
      }
      const twice = await call('GET', '/api/markets?closed=true&closed=false');
      assert.equal(twice.status, 400);
      assert.match(twice.body.error, /closed/);
      // The in-memory answers are kept per query: a filter asked again after another still answers its own.
      assert.deepEqual(await list('closed=true'), sorted(resolved, cancelled));
      assert.deepEqual(await list('closed=false'), sorted(active, pending));
      // A market leaving the open set leaves the open list at once.
      await ok(admin('POST', `/admin/markets/${active.id}/cancel`));
      assert.deepEqual(await list('closed=false'), sorted(pending));
      assert.deepEqual(await list('closed=true'), sorted(active, resolved, cancelled));
    });
  });
});
