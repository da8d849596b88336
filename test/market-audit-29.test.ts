import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import type { Kysely } from 'kysely';
import type { Database } from '../src/storage/schema.ts';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { freshDatabase, interceptQueries } from './helpers/database.ts';
import { assertBooksBalanced } from './helpers/market.ts';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { tradeBody } from './helpers/market-client.ts';
import { marketOverSocket } from './helpers/market-socket.ts';

/**
 * A database a test can step a commit into the middle of one read: once armed, the first
 * statement matching the pattern runs, then the armed action (trades through the API) runs and
 * commits, and every other matching statement the read issued meanwhile waits for it. The action's
 * own statements run after disarming, so they never wait.
 */
function steppableDb(db: Kysely<Database>) {
  let armed: { pattern: RegExp; action: () => Promise<void>; first: boolean; done: Promise<void>; release: () => void } | null = null;
  const wrapped = interceptQueries(db, async (q, run) => {
    const step = armed;
    if (!step || !step.pattern.test(q.sql)) return run();
    if (!step.first) {
      await step.done;
      return run();
    }
    step.first = false;
    const result = await run();
    armed = null;
    try {
      await step.action();
    } finally {
      step.release();
    }
    return result;
  });
  return {
    db: wrapped,
    after: (pattern: RegExp, action: () => Promise<void>) => {
      let release = () => {};
      const done = new Promise<void>((r) => (release = r));
      armed = { pattern, action, first: true, done, release };
    },
  };
}

/**
 * The session 29 audit of the market API (docs/api-decisions.md, "Market API: session 29 audit").
 * Runs on PGlite, and on PostgreSQL with DATABASE_URL.
 */
describe('market API, session 29 audit (over HTTP)', () => {
  let t: TestApp;
  let base: string;
  let database: Awaited<ReturnType<typeof freshDatabase>>;
  let step: ReturnType<typeof steppableDb>;
  /** The service's clock runs this far from the real one; the signed seconds stay real (the service takes 30 s either way). */
  let offsetMs = 0;
  before(async () => {
    database = await freshDatabase();
    step = steppableDb(database.db);
    t = await startTestApp({ env: { RATE_LIMIT_MARKET_PER_MINUTE: '1000000' }, database: { ...database, db: step.db }, clock: { now: () => Date.now() + offsetMs } });
    base = await t.listen();
  });
  after(async () => {
    await t?.close();
    await database?.close();
  });
  afterEach(() => {
    offsetMs = 0;
    return assertBooksBalanced(database.db);
  });

  const { call, admin, ok, trader, market, send, endIn } = marketOverSocket(() => base);
  type Trader = Awaited<ReturnType<typeof trader>>;
  type TradeAnswer = { trade_id: number; new_yes_price: number; new_no_price: number; shares: number; price: number };
  const trade = async (w: Trader, marketId: number, side: string, amount: number) =>
    (await ok(send(w.viaKey, { method: 'POST', url: '/api/pool/trade', body: tradeBody(w.wallet, marketId, side, amount) }))).data as TradeAnswer;

  describe('price history', () => {
    it('reads the trade before the window and the samples in it as one snapshot while trades commit', async () => {
      // Trades dated by the clock of the instance that made them (docs/api-decisions.md,
      // "session 28 audit"): one 10 s behind lands before the window, one 2 s behind inside it.
      offsetMs = -20_000;
      const m = (await market('aud29hist')).id;
      const w = await trader('100');
      const x = await trade(w, m, 'yes', 10);
      offsetMs = 0;
      const startTs = Math.floor(Date.now() / 1000) - 5;
      let y1: TradeAnswer | undefined;
      let y2: TradeAnswer | undefined;
      step.after(/^\s*(with|select)\b[\s\S]*price_yes_after/i, async () => {
        offsetMs = -10_000;
        y1 = await trade(w, m, 'no', 5);
        offsetMs = -2_000;
        y2 = await trade(w, m, 'yes', 7);
        offsetMs = 0;
      });
      const h = (await ok(call('GET', `/api/markets/${m}/history?startTs=${startTs}&fidelity=1`))).data as { history: { t: number; p: number }[] };
      assert.ok(y1 && y2, 'the trades committed during the read');
      const first = h.history[0]!.p;
      const last = h.history.at(-1)!.p;
      const pre = [x.new_yes_price, x.new_yes_price];
      const post = [y1.new_yes_price, y2.new_yes_price];
      assert.ok(
        [pre, post].some(([a, b]) => a === first && b === last),
        `history from ${first} to ${last} is neither before the trades ${JSON.stringify(pre)} nor after them ${JSON.stringify(post)}`,
      );
    });
  });
  describe('decided: an admin-created market without status, a wallet-signed trade for another wallet', () => {
    it('a market created without status is active and trades; one created pending trades only once activated', async () => {
      const made = (await ok(admin('POST', '/admin/markets', { title: `Aud29 default ${Math.random()}`, category: 'aud29st', market_type: 'yesno', end_date: endIn(3) }), 201)) as { id: number; status: string };
      assert.equal(made.status, 'active');
      const w = await trader('20');
      await trade(w, made.id, 'yes', 2);
      const pending = (await ok(admin('POST', '/admin/markets', { title: `Aud29 pending ${Math.random()}`, category: 'aud29st', market_type: 'yesno', end_date: endIn(3), status: 'pending' }), 201)) as { id: number; status: string };
      assert.equal(pending.status, 'pending');
      const refused = await send(w.viaKey, { method: 'POST', url: '/api/pool/trade', body: tradeBody(w.wallet, pending.id, 'yes', 2) });
      assert.deepEqual([refused.status, refused.body], [400, { success: false, error: 'Market not active' }]);
      assert.equal((await ok(admin('POST', `/admin/markets/${pending.id}/activate`))).status, 'active');
      await trade(w, pending.id, 'yes', 2);
    });

    it('a trade for another wallet is 403 naming the credential that does not match', async () => {
      const m = (await market('aud29who')).id;
      const w = await trader('20');
      const other = privateKeyToAccount(generatePrivateKey()).address;
      const byWallet = await send(w.viaWallet, { method: 'POST', url: '/api/pool/trade', body: tradeBody(other, m, 'yes', 2) });
      assert.deepEqual([byWallet.status, byWallet.body], [403, { success: false, error: 'Wallet mismatch' }]);
      const byKey = await send(w.viaKey, { method: 'POST', url: '/api/pool/trade', body: tradeBody(other, m, 'yes', 2) });
      assert.deepEqual([byKey.status, byKey.body], [403, { success: false, error: 'API key wallet mismatch' }]);
    });
  });
});
