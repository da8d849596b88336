import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { startMarketOverSocket, marketOverSocket } from './helpers/market-socket.ts';
import type { TestApp } from './helpers/app.ts';
import { assertBooksBalanced } from './helpers/market.ts';

/**
 * The thirteenth audit of the market API against market-api.md and market-math.md
 * (docs/api-decisions.md, "Market API: thirteenth audit"), over a real socket, as a trader, a bot
 * and an operator meet it.
 */
describe('market API against market-api.md (thirteenth audit, over HTTP)', () => {
  let t: TestApp;
  let base: string;
  before(async () => {
    ({ t, base } = await startMarketOverSocket());
  });
  after(async () => {
    await t?.close();
  });
  afterEach(() => assertBooksBalanced(t.deps.db));

  const { call, admin, ok, send, trader, market } = marketOverSocket(() => base);

  /** USDC as the API shows it (a JSON number) to units, and back. */
  const units = (usdc: number): bigint => BigInt(Math.round(usdc * 1e6));
  const usdc = (u: bigint): number => Number(u) / 1e6;

  describe('"Minimum trade is 1 USDC" for every amount below the minimum', () => {
    it('answers the documented message for a sub-minimum amount with more than 6 decimals, in the checks\' order, on trade and estimate', async () => {
      const m = await market('minimum');
      const p = await trader('5');
      const trade = (market_id: number, amount: number, side = 'yes') =>
        send(p.viaKey, { method: 'POST', url: '/api/pool/trade', body: { wallet_addr: p.wallet, market_id, side, amount } });
      const estimate = (market_id: number, amount: number, side = 'yes') => call('POST', '/api/pool/estimate', { market_id, side, amount });
      const minimum = { status: 400, body: { success: false, error: 'Minimum trade is 1 USDC' } };
      // A bot sizing its stake as a fraction of its balance sends these: each is below 1 USDC,
      // which the document's table answers `Minimum trade is 1 USDC` whatever its decimals.
      for (const amount of [0.5000001, 0.1234567, 1e-7, 0.9999999, -1e-7, -2.0000001]) {
        assert.deepEqual(await trade(m.id, amount), minimum, `trade ${amount}`);
        assert.deepEqual(await estimate(m.id, amount), minimum, `estimate ${amount}`);
      }
      // The checks before the minimum keep their place: an unknown market, a side.
      assert.deepEqual(await trade(999_999, 0.5000001), { status: 404, body: { success: false, error: 'Market not found' } });
      assert.deepEqual(await estimate(m.id, 0.5000001, 'maybe'), { status: 400, body: { success: false, error: 'Invalid side' } });
      // From the minimum up, more than 6 decimals is still refused as such (never rounded).
      for (const amount of [1.0000001, 2.1234567]) {
        assert.deepEqual(await trade(m.id, amount), { status: 400, body: { success: false, error: 'amount must have at most 6 decimals' } }, `trade ${amount}`);
        assert.deepEqual(await estimate(m.id, amount), { status: 400, body: { success: false, error: 'amount must have at most 6 decimals' } }, `estimate ${amount}`);
      }
      // Nothing moved; 1 USDC exactly trades.
      assert.equal((await call('GET', `/api/pool/balance/${p.wallet}`)).body.data.balance, 5);
      assert.equal((await trade(m.id, 1)).status, 200);
    });
  });
});
