import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, afterEach, before, describe, it } from 'node:test';
import type { DatabaseHandle } from '../src/storage/database.ts';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { freshDatabase, openSameDatabase } from './helpers/database.ts';
import { assertBooksBalanced } from './helpers/market.ts';
import { tradeBody } from './helpers/market-client.ts';
import { marketOverSocket } from './helpers/market-socket.ts';

/** How far the second instance's clock runs behind the first's (NTP keeps hosts within seconds, not exactly). */
const SKEW_MS = 10_000;

/**
 * The session 28 audit of the market API (docs/api-decisions.md, "Market API: session 28 audit"):
 * two instances on one database whose clocks disagree by a few seconds, as behind a load balancer.
 * Runs on PGlite, and on PostgreSQL with DATABASE_URL.
 */
describe('market API, session 28 audit (over HTTP, two instances)', () => {
  const env = { RATE_LIMIT_MARKET_PER_MINUTE: '1000000', SECRETS_KEY: randomBytes(32).toString('base64') };
  const redisPrefix = `t${randomBytes(6).toString('hex')}`;
  let database: DatabaseHandle & { url: string | null };
  let second: DatabaseHandle | null = null;
  let ahead: TestApp;
  let behind: TestApp;
  let target: 'ahead' | 'behind' = 'ahead';
  before(async () => {
    database = await freshDatabase();
    ahead = await startTestApp({ database, redisPrefix, env });
    second = database.url ? await openSameDatabase(database.url) : null;
    behind = await startTestApp({ database: second ? { ...second, url: database.url } : database, redisPrefix, env, clock: { now: () => Date.now() - SKEW_MS } });
    await ahead.listen();
    await behind.listen();
  });
  after(async () => {
    await ahead?.close();
    await behind?.close();
    if (second) await second.close();
    await database?.close();
  });
  afterEach(() => assertBooksBalanced(ahead.deps.db));

  // One client (one set of signed seconds) that sends to whichever instance `target` names.
  const { call, admin, ok, trader, market, send } = marketOverSocket(() => (target === 'ahead' ? ahead.url : behind.url));
  type Trader = Awaited<ReturnType<typeof trader>>;
  const adminOn = (instance: typeof target, method: string, path: string, body?: unknown) => {
    target = instance;
    return ok(admin(method, path, body));
  };
  const tradeOn = (instance: typeof target, w: Trader, marketId: number, side: string, amount: number) => {
    target = instance;
    return ok(send(w.viaKey, { method: 'POST', url: '/api/pool/trade', body: tradeBody(w.wallet, marketId, side, amount) }));
  };

  describe('trades dated by an instance whose clock runs behind', () => {
    it('are listed, timed and priced in the order they were made', async () => {
      target = 'ahead';
      const m = (await market('aud28skew')).id;
      const w = await trader('100');
      const first = (await tradeOn('ahead', w, m, 'yes', 10)).data as { trade_id: number };
      const later = (await tradeOn('behind', w, m, 'no', 5)).data as { trade_id: number; new_yes_price: number };
      target = 'ahead';

      const trades = (await ok(call('GET', `/api/trades?market=${m}`))).data as { id: number; timestamp: string }[];
      assert.deepEqual(
        trades.map((x) => x.id),
        [later.trade_id, first.trade_id],
        `newest first is the later trade first: ${JSON.stringify(trades)}`,
      );
      assert.ok(trades[0]!.timestamp >= trades[1]!.timestamp, `the later trade is not dated before the earlier: ${JSON.stringify(trades)}`);

      const detail = (await ok(call('GET', `/api/markets/${m}`))).data as { created_at: string; last_trade_at: string; yes_price: number };
      assert.equal(detail.last_trade_at, trades[0]!.timestamp, 'last_trade_at is the latest trade');
      assert.ok(trades[1]!.timestamp >= detail.created_at, 'no trade is dated before its market opened');

      // docs/pool-arithmetic.md: the price at t is the price after the last trade at or before t;
      // at now that is the price the market shows.
      assert.equal(detail.yes_price, later.new_yes_price);
      const history = (await ok(call('GET', `/api/markets/${m}/history?interval=1h&fidelity=1`))).data as { history: { t: number; p: number }[] };
      assert.equal(history.history.at(-1)!.p, detail.yes_price, `the history ends at the price now: ${JSON.stringify(history.history.slice(-3))}`);
    });

    it('never date a market\'s first trade before the market was created', async () => {
      target = 'ahead';
      const m = (await market('aud28open')).id;
      const w = await trader('100');
      const made = (await tradeOn('behind', w, m, 'yes', 2)).data as { trade_id: number; new_yes_price: number };
      target = 'ahead';
      const detail = (await ok(call('GET', `/api/markets/${m}`))).data as { created_at: string; last_trade_at: string };
      const trades = (await ok(call('GET', `/api/trades?market=${m}`))).data as { id: number; timestamp: string }[];
      assert.equal(trades[0]!.id, made.trade_id);
      assert.ok(trades[0]!.timestamp >= detail.created_at, `trade at ${trades[0]!.timestamp}, market created at ${detail.created_at}`);
      const history = (await ok(call('GET', `/api/markets/${m}/history?interval=1h&fidelity=1`))).data as { history: { t: number; p: number }[] };
      assert.equal(history.history.at(-1)!.p, made.new_yes_price);
    });
  });

  describe('reads by an instance whose clock runs behind', () => {
    it('count a trade dated by an instance ahead of it in volume_24h and the price history', async () => {
      target = 'ahead';
      const m = (await market('aud28read')).id;
      const w = await trader('100');
      const made = (await tradeOn('ahead', w, m, 'yes', 3)).data as { new_yes_price: number };
      target = 'behind';
      const price = (await ok(call('GET', `/api/markets/${m}/price`))).data as { volume: number; volume_24h: number; yes_price: number };
      assert.equal(price.volume_24h, price.volume, `the trade of a moment ago is in the last 24 hours: ${JSON.stringify(price)}`);
      const batch = (await ok(call('GET', `/api/markets/prices?ids=${m}`))).data as Record<string, { volume_24h: number }>;
      assert.equal(batch[m]!.volume_24h, 3);
      const item = ((await ok(call('GET', `/api/markets?category=aud28read`))).data as { volume_24h: number }[])[0]!;
      assert.equal(item.volume_24h, 3);
      const history = (await ok(call('GET', `/api/markets/${m}/history?interval=1h&fidelity=1`))).data as { history: { p: number }[] };
      assert.equal(history.history.at(-1)!.p, made.new_yes_price, `the history ends at the price now: ${JSON.stringify(history.history.slice(-3))}`);
      target = 'ahead';
    });
  });

  describe('a settlement by an instance whose clock runs behind', () => {
    for (const action of ['resolve', 'cancel'] as const) {
      it(`${action}: is dated no earlier than the market's last trade`, async () => {
        target = 'ahead';
        const m = (await market(`aud28${action}`)).id;
        const w = await trader('100');
        await tradeOn('ahead', w, m, 'yes', 3);
        const settled = (await adminOn('behind', 'POST', `/admin/markets/${m}/${action}`, action === 'resolve' ? { outcome: 'yes' } : undefined)) as {
          last_trade_at: string;
          resolved_at: string | null;
          cancelled_at: string | null;
        };
        const when = settled.resolved_at ?? settled.cancelled_at!;
        assert.ok(when >= settled.last_trade_at, `${action} at ${when}, last trade at ${settled.last_trade_at}`);
        target = 'ahead';
        const ledger = (await ok(call('GET', `/api/pool/ledger/${w.wallet}`))).data as { type: string; created_at: string }[];
        assert.equal(ledger[0]!.type, action === 'resolve' ? 'settlement' : 'refund');
        assert.ok(ledger[0]!.created_at >= ledger[1]!.created_at, `the ledger, newest first, is dated in order: ${JSON.stringify(ledger)}`);
      });
    }
  });
});
