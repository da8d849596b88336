import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { startMarketOverSocket, marketOverSocket } from './helpers/market-socket.ts';
import type { TestApp } from './helpers/app.ts';
import { assertBooksBalanced } from './helpers/market.ts';

/**
 * The sixteenth audit of the market API (docs/api-decisions.md, "Market API: sixteenth audit"),
 * over a real socket.
 */
describe('market API, sixteenth audit (over HTTP)', () => {
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

  describe("Polymarket's active and closed on the events list", () => {
    it('maps active= and closed= onto the event status, combines them with status, and refuses a bad boolean naming it', async () => {
      const category = 'audit16ev';
      const open = (await ok(admin('POST', '/admin/events', { title: `Audit16 open ${Math.random()}`, category }), 201)) as { id: number };
      const done = (await ok(admin('POST', '/admin/events', { title: `Audit16 done ${Math.random()}`, category }), 201)) as { id: number };
      const m = await market(category, { event_id: done.id });
      await ok(admin('POST', `/admin/markets/${m.id}/resolve`, { outcome: 'yes' }));
      const list = async (query: string) => {
        const body = await ok(call('GET', `/api/events?limit=100&${query}`));
        const ids = (body.data as { id: number }[]).map((e) => e.id).filter((id) => id === open.id || id === done.id).sort((a, b) => a - b);
        assert.equal(body.total, body.data.length, `${query}: total counts the same events`);
        return ids;
      };
      assert.deepEqual(await list(''), [open.id, done.id]);
      assert.deepEqual(await list('active=true'), [open.id]);
      assert.deepEqual(await list('active=false'), [done.id]);
      assert.deepEqual(await list('closed=true'), [done.id]);
      assert.deepEqual(await list('closed=false'), [open.id]);
      assert.deepEqual(await list('active=true&closed=false'), [open.id]);
      assert.deepEqual(await list('status=resolved&closed=true'), [done.id]);
      assert.deepEqual(await list('status=active&active=true'), [open.id]);
      // A contradiction is an empty page, as on the markets list.
      for (const q of ['status=resolved&closed=false', 'status=active&active=false', 'active=true&closed=true']) {
        const none = await ok(call('GET', `/api/events?${q}`));
        assert.deepEqual([none.data, none.total], [[], 0], q);
      }
      for (const [name, value] of [['active', 'yes'], ['active', 'TRUE'], ['active', ''], ['closed', '1'], ['closed', 'False']]) {
        assert.deepEqual(await call('GET', `/api/events?${name}=${value}`), {
          status: 400,
          body: { success: false, error: `Invalid ${name}: must be one of true, false` },
        }, `${name}=${value}`);
      }
    });
  });
});
