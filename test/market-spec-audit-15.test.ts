import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { marketAuditSuite } from './helpers/market-socket.ts';

/**
 * The fifteenth audit of the market API (docs/api-decisions.md, "Market API: fifteenth audit"),
 * over a real socket.
 */
describe('market API, fifteenth audit (over HTTP)', () => {
  const { call, admin, ok, send, trader, endIn, market } = marketAuditSuite();

  describe('operator: outcome labels', () => {
    it('refuses two outcomes with the same label (ignoring case and spaces), on create and on edit', async () => {
      const create = (market_type: string, outcome_labels: Record<string, string>) =>
        admin('POST', '/admin/markets', { title: `labels ${Math.random()}`, category: 'audit15', market_type, end_date: endIn(3), outcome_labels });
      assert.deepEqual(await create('custom', { yes: 'A', no: 'A' }), {
        status: 400,
        body: { error: 'invalid outcome_labels: yes and no have the same label "A"; each outcome needs its own' },
      });
      assert.deepEqual(await create('custom', { yes: 'Lakers', no: ' lakers ' }), {
        status: 400,
        body: { error: 'invalid outcome_labels: yes and no have the same label "Lakers"; each outcome needs its own' },
      });
      assert.deepEqual(await create('threeway', { yes: 'Home', no: 'Away', draw: 'HOME' }), {
        status: 400,
        body: { error: 'invalid outcome_labels: yes and draw have the same label "Home"; each outcome needs its own' },
      });
      await ok(create('custom', { yes: 'Lakers', no: 'Celtics' }), 201);
      const m = await market('audit15');
      const edit = await admin('PATCH', `/admin/markets/${m.id}`, { outcome_labels: { yes: 'Same', no: 'same' } });
      assert.deepEqual(edit, { status: 400, body: { error: 'invalid outcome_labels: yes and no have the same label "Same"; each outcome needs its own' } });
      const detail = await ok(call('GET', `/api/markets/${m.id}`));
      assert.deepEqual(detail.data.outcomes.map((o: { label: string }) => o.label), ['Yes', 'No'], 'a refused edit changes nothing');
    });
  });

  describe('trades of one wallet', () => {
    it('GET /api/trades?wallet= (or Polymarket\'s user=) lists that wallet\'s trades only, with its total, alone or with market', async () => {
      const m1 = await market('audit15');
      const m2 = await market('audit15');
      const a = await trader('50');
      const b = await trader('50');
      const stake = async (who: typeof a, market_id: number, side: string, amount: number) =>
        (await ok(send(who.viaKey, { method: 'POST', url: '/api/pool/trade', body: { wallet_addr: who.wallet, market_id, side, amount } }))).data.trade_id as number;
      const a1 = await stake(a, m1.id, 'yes', 2);
      const b1 = await stake(b, m1.id, 'no', 3);
      const a2 = await stake(a, m2.id, 'no', 4);
      const a3 = await stake(a, m1.id, 'no', 1.5);
      const ids = (body: { data: { id: number }[] }) => body.data.map((r) => r.id);

      const mine = await ok(call('GET', `/api/trades?wallet=${a.wallet}`));
      assert.deepEqual(ids(mine), [a3, a2, a1], 'newest first');
      assert.deepEqual([mine.total, mine.page, mine.limit], [3, 1, 20]);
      assert.ok(mine.data.every((r: { wallet: string }) => r.wallet === a.wallet.toLowerCase()));
      // Any case of the address; Polymarket's name for it; with market; paged.
      assert.deepEqual(ids(await ok(call('GET', `/api/trades?wallet=${a.wallet.toUpperCase().replace('0X', '0x')}`))), [a3, a2, a1]);
      assert.deepEqual(ids(await ok(call('GET', `/api/trades?user=${a.wallet}`))), [a3, a2, a1]);
      const inM1 = await ok(call('GET', `/api/trades?wallet=${a.wallet}&market=${m1.id}`));
      assert.deepEqual([ids(inM1), inM1.total], [[a3, a1], 2]);
      const second = await ok(call('GET', `/api/trades?wallet=${a.wallet}&limit=2&page=2`));
      assert.deepEqual([ids(second), second.total], [[a1], 3]);
      assert.deepEqual(ids(await ok(call('GET', `/api/trades?wallet=${b.wallet}`))), [b1]);
      // A wallet that never traded has none (not 404, as its portfolio).
      const none = await ok(call('GET', `/api/trades?wallet=0x${'0'.repeat(39)}1`));
      assert.deepEqual([none.data, none.total], [[], 0]);
      // Bad values name the parameter.
      assert.deepEqual(await call('GET', '/api/trades?wallet=0x12'), { status: 400, body: { success: false, error: 'Invalid wallet: must be 0x followed by 40 hex digits' } });
      assert.deepEqual(await call('GET', '/api/trades?user=bob'), { status: 400, body: { success: false, error: 'Invalid user: must be 0x followed by 40 hex digits' } });
      assert.deepEqual(await call('GET', `/api/trades?wallet=${a.wallet}&user=${a.wallet}`), {
        status: 400,
        body: { success: false, error: 'Invalid user: cannot be combined with wallet (they are the same filter)' },
      });
      assert.equal((await call('GET', `/api/trades?wallet=${a.wallet}&market=999999`)).status, 404);
    });
  });
});
