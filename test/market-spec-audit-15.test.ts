import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { startMarketOverSocket, marketOverSocket } from './helpers/market-socket.ts';
import type { TestApp } from './helpers/app.ts';
import { assertBooksBalanced } from './helpers/market.ts';

/**
 * The fifteenth audit of the market API (docs/api-decisions.md, "Market API: fifteenth audit"),
 * over a real socket.
 */
describe('market API, fifteenth audit (over HTTP)', () => {
  let t: TestApp;
  let base: string;
  before(async () => {
    ({ t, base } = await startMarketOverSocket());
  });
  after(async () => {
    await t?.close();
  });
  afterEach(() => assertBooksBalanced(t.deps.db));

  const { call, admin, ok, endIn, market } = marketOverSocket(() => base);

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
});
