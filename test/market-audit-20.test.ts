import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import type { Kysely } from 'kysely';
import type { Database } from '../src/storage/schema.ts';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { freshDatabase, interceptQueries } from './helpers/database.ts';
import { assertBooksBalanced } from './helpers/market.ts';
import { tradeBody, walletHeaders } from './helpers/market-client.ts';
import { marketOverSocket } from './helpers/market-socket.ts';

/**
 * A database whose statements a test can step between: once armed, the first statement whose
 * SQL matches the pattern runs, and the armed action (a resolution or a trade through the API)
 * runs and commits before that statement's answer reaches the service. It waits outside the
 * connection, so it works on PGlite's one connection too.
 */
function steppableDb(db: Kysely<Database>) {
  let armed: { pattern: RegExp; action: () => Promise<void> } | null = null;
  const wrapped = interceptQueries(db, async (q, run) => {
    const result = await run();
    const step = armed;
    if (step && step.pattern.test(q.sql)) {
      armed = null;
      await step.action();
    }
    return result;
  });
  return { db: wrapped, after: (pattern: RegExp, action: () => Promise<void>) => void (armed = { pattern, action }) };
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

      step.after(/\bpositions\b/, async () => void (await ok(admin('POST', `/admin/markets/${m}/resolve`, { outcome: 'yes' }))));
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

  describe('an event with its markets, a market with its event', () => {
    /** An event with two yes/no markets, traded once each. */
    const eventWithMarkets = async (w: Trader, tag: string) => {
      const ev = (await ok(admin('POST', '/admin/events', { title: `Aud20 ${tag} ${Math.random()}`, category: 'aud20ev' }), 201)) as { id: number; slug: string };
      const ids: number[] = [];
      for (let i = 0; i < 2; i++) ids.push((await market('aud20ev', { event_id: ev.id })).id);
      for (const id of ids) await ok(trade(w, id, 'yes', 2));
      return { ev, ids };
    };
    type Ev = { total_volume: number; markets_count: number; markets: { id: number; volume: number }[] };
    const agrees = (e: Ev) => {
      const sum = e.markets.reduce((x, m) => x + Math.round(m.volume * 1e6), 0);
      assert.equal(Math.round(e.total_volume * 1e6), sum, `total_volume ${e.total_volume} is the sum of its markets' volumes (${sum / 1e6})`);
      assert.equal(e.markets_count, e.markets.length);
    };

    it('GET /api/events/:slugOrId reads the event and its markets in one reading while a trade commits', async () => {
      const w = await trader('100');
      const { ev, ids } = await eventWithMarkets(w, 'detail');
      for (const path of [`/api/events/${ev.id}`, `/api/events/${ev.slug}`]) {
        step.after(/from events e\b/, async () => void (await ok(trade(w, ids[0]!, 'no', 3))));
        const e = (await ok(call('GET', path))).data as Ev;
        agrees(e);
      }
    });

    it('GET /api/events/featured reads the event and its markets in one reading while a trade commits', async () => {
      const w = await trader('100');
      const { ev, ids } = await eventWithMarkets(w, 'featured');
      await ok(admin('POST', `/admin/events/${ev.id}/feature`));
      step.after(/from events e\b/, async () => void (await ok(trade(w, ids[1]!, 'no', 3))));
      const e = (await ok(call('GET', '/api/events/featured'))).data as Ev & { id: number };
      assert.equal(e.id, ev.id);
      agrees(e);
    });

    it('GET /api/markets/:id reads the market and its event in one reading while a trade commits', async () => {
      const w = await trader('100');
      const ev = (await ok(admin('POST', '/admin/events', { title: `Aud20 one ${Math.random()}`, category: 'aud20ev' }), 201)) as { id: number };
      const m = (await market('aud20ev', { event_id: ev.id })).id;
      await ok(trade(w, m, 'yes', 2));
      for (const path of [`/api/markets/${m}`, '/api/markets/featured']) {
        if (path.endsWith('featured')) await ok(admin('POST', `/admin/markets/${m}/feature`));
        step.after(/from markets m where/, async () => void (await ok(trade(w, m, 'no', 3))));
        const d = (await ok(call('GET', path))).data as { id: number; volume: number; event: { total_volume: number; markets_count: number } };
        assert.equal(d.id, m);
        assert.equal(d.event.total_volume, d.volume, `${path}: the event of one market has that market's volume`);
      }
    });
  });

  describe('a wallet signature sent again in another encoding', () => {
    it('is refused as used: v as 0/1, upper-case hex, and the other s of the pair; one stake moved', async () => {
      const m = (await market('aud20sig')).id;
      const w = await trader('20');
      const payload = JSON.stringify(tradeBody(w.wallet, m, 'yes', 2));
      const headers = await walletHeaders(w.account, { method: 'POST', path: '/api/pool/trade', body: payload, timestamp: Math.floor(Date.now() / 1000) });
      const post = (signature: string) =>
        fetch(`${base}/api/pool/trade`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers, 'x-wallet-signature': signature }, body: payload }).then(
          async (res) => ({ status: res.status, body: (await res.json()) as unknown }),
        );
      const sig = headers['x-wallet-signature']!;
      assert.equal((await post(sig)).status, 200);
      const r = BigInt(`0x${sig.slice(2, 66)}`);
      const sv = BigInt(`0x${sig.slice(66, 130)}`);
      const v = Number.parseInt(sig.slice(130), 16);
      const n = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
      const hex = (x: bigint) => x.toString(16).padStart(64, '0');
      const variants = {
        'v as 0/1': `0x${hex(r)}${hex(sv)}${(v - 27).toString(16).padStart(2, '0')}`,
        'upper-case hex': `0x${sig.slice(2).toUpperCase()}`,
        'the other s': `0x${hex(r)}${hex(n - sv)}${(v === 27 ? 28 : 27).toString(16)}`,
      };
      for (const [name, variant] of Object.entries(variants)) {
        assert.deepEqual(await post(variant), { status: 401, body: { success: false, error: 'Signature already used' } }, name);
      }
      assert.equal((await ok(call('GET', `/api/pool/balance/${w.wallet}`))).data.balance, 18);
    });
  });
});
