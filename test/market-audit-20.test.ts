import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import type { CompiledQuery, Kysely, QueryResult } from 'kysely';
import type { Database } from '../src/storage/schema.ts';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { freshDatabase } from './helpers/database.ts';
import { assertBooksBalanced } from './helpers/market.ts';
import { tradeBody } from './helpers/market-client.ts';
import { marketOverSocket } from './helpers/market-socket.ts';

/**
 * A database whose statements a test can step between: once armed, the first statement that
 * reads `positions` runs, and the armed action (e.g. a resolution through the admin API) runs
 * and commits before that statement's answer reaches the service. It waits outside the
 * connection, so it works on PGlite's one connection too.
 */
function steppableDb(db: Kysely<Database>) {
  let armed: (() => Promise<void>) | null = null;
  const executor = db.getExecutor();
  const stepping = new Proxy(executor, {
    get(target, prop) {
      if (prop === 'executeQuery') {
        return async (q: CompiledQuery): Promise<QueryResult<unknown>> => {
          const result = await target.executeQuery(q);
          const action = armed;
          if (action && /\bpositions\b/.test(q.sql)) {
            armed = null;
            await action();
          }
          return result;
        };
      }
      const v = Reflect.get(target, prop, target) as unknown;
      return typeof v === 'function' ? v.bind(target) : v;
    },
  });
  const wrapped = new Proxy(db, {
    get(target, prop) {
      if (prop === 'getExecutor') return () => stepping;
      const v = Reflect.get(target, prop, target) as unknown;
      return typeof v === 'function' ? v.bind(target) : v;
    },
  });
  return { db: wrapped, after: (action: () => Promise<void>) => void (armed = action) };
}

/**
 * The twentieth audit of the market API (docs/api-decisions.md, "Market API: twentieth audit").
 * Runs on PGlite, and on PostgreSQL with DATABASE_URL.
 */
describe('market API, twentieth audit (over HTTP)', () => {
  let t: TestApp;
  let base: string;
  let database: Awaited<ReturnType<typeof freshDatabase>>;
  let step: ReturnType<typeof steppableDb>;
  before(async () => {
    database = await freshDatabase();
    step = steppableDb(database.db);
    t = await startTestApp({ env: { RATE_LIMIT_MARKET_PER_MINUTE: '1000000' }, database: { ...database, db: step.db } });
    base = await t.listen();
  });
  after(async () => {
    await t?.close();
    await database?.close();
  });
  afterEach(() => assertBooksBalanced(database.db));

  const { call, admin, ok, trader, market, send } = marketOverSocket(() => base);
  type Trader = Awaited<ReturnType<typeof trader>>;
  const trade = (w: Trader, marketId: number, side: string, amount: number) =>
    send(w.viaKey, { method: 'POST', url: '/api/pool/trade', body: tradeBody(w.wallet, marketId, side, amount) });

  describe('a trader profile', () => {
    it('reads total_pnl and rank in one reading, even when a resolution commits in the middle', async () => {
      const m = (await market('aud20rank')).id;
      const a = await trader('50');
      const b = await trader('50');
      await ok(trade(a, m, 'yes', 10));
      await ok(trade(b, m, 'no', 10));
      type Entry = { wallet: string; total_pnl: number; rank: number };
      const board = async () => ((await ok(call('GET', '/api/users/leaderboard?limit=100'))).data as Entry[]).filter((e) => [a.wallet, b.wallet].map((w) => w.toLowerCase()).includes(e.wallet));
      const rowOf = (entries: Entry[], w: string) => entries.find((e) => e.wallet === w.toLowerCase())!;
      const beforeResolve = await board();
      // B, who bought second, marks above A while open (rank 1), and loses its stake once `yes`
      // resolves (rank 2). B's profile read across the resolution must be one of the two.
      assert.ok(rowOf(beforeResolve, a.wallet).total_pnl < rowOf(beforeResolve, b.wallet).total_pnl);

      step.after(async () => void (await ok(admin('POST', `/admin/markets/${m}/resolve`, { outcome: 'yes' }))));
      const profile = (await ok(call('GET', `/api/users/${b.wallet}`))).data as Entry;
      const afterResolve = await board();
      assert.equal((await ok(call('GET', `/api/markets/${m}`))).data.status, 'resolved', 'the resolution ran during the read');

      const states = [beforeResolve, afterResolve].map((s) => ({ total_pnl: rowOf(s, b.wallet).total_pnl, rank: rowOf(s, b.wallet).rank }));
      assert.notDeepEqual(states[0], states[1]);
      assert.ok(
        states.some((s) => s.total_pnl === profile.total_pnl && s.rank === profile.rank),
        `profile total_pnl ${profile.total_pnl} rank ${profile.rank} is neither ${JSON.stringify(states[0])} nor ${JSON.stringify(states[1])}`,
      );
    });
  });
});
