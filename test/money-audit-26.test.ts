import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { Agent, request } from 'undici';
import type { DatabaseHandle } from '../src/storage/database.ts';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { freshDatabase, openSameDatabase } from './helpers/database.ts';
import { startGateway } from './helpers/gateway.ts';
import { releaseStaleHolds } from '../src/inference/billing/credits.repository.ts';
import { createTestAccount, creditBooks, manualClock } from './helpers/inference.ts';
import { assertBooksBalanced, manualClock as marketClock, onServer, USDC } from './helpers/market.ts';
import { nowSeconds, signedRequest, tradeBody, type MarketSigner } from './helpers/market-client.ts';
import { marketHttp, type Answer } from './helpers/market-http.ts';
import { waitFor } from './helpers/wait.ts';

const ENV = { RATE_LIMIT_INFERENCE_PER_MINUTE: '100000' };

/**
 * Money under races, session 26 (docs/api-decisions.md, "Money under races: session 26 audit").
 */
describe('money audit 26: credit leases', () => {
  // svc-fast: max_tokens 1000 holds some 1.8 credits (output and the chat input margin): ten
  // requests on instance one lease all of a 5-credit balance, and the later ones wait there.
  it('a request waiting longer than the idle period for another instance\'s lease leaves nothing reserved', async () => {
    const one = await startGateway({ env: ENV });
    const two = await startGateway({ env: ENV, database: one.t.database });
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let closed = false;
    try {
      const acct = await createTestAccount(one.t, { credits: 5 });
      const N = 10;
      one.openai.chat.enqueue(...Array.from({ length: N }, (_, i) => ({ text: `a${i}`, waitFor: gate })));
      const ask = (g: typeof one, i: number) =>
        g.client(acct.key).chat.completions.create({ model: 'svc-fast', max_tokens: 1000, messages: [{ role: 'user', content: `q${i}` }] });
      const runs = Array.from({ length: N }, (_, i) => ask(one, i).then(() => 200, (e: { status?: number }) => e.status ?? 0));
      // Instance one's later requests wait for its own holds: the balance is all in its lease.
      await waitFor(() => one.t.deps.billing.waiting() > 0, { message: 'instance one never leased the whole balance' });
      const other = ask(two, N).then(() => 200, (e: { status?: number }) => e.status ?? 0);
      await waitFor(() => two.t.deps.billing.waiting() > 0, { message: 'instance two never waited for the credits of instance one' });
      // Many idle periods (CREDIT_LEASE_IDLE_MS is 100 ms here) pass while instance two waits.
      await new Promise((r) => setTimeout(r, 800));
      release();
      assert.deepEqual(await Promise.all(runs), Array(N).fill(200));
      assert.equal(await other, 200);
      await one.t.deps.billing.written();
      await two.t.deps.billing.written();
      await two.close();
      await one.t.deps.billing.close();
      closed = true;
      const books = await creditBooks(one.t, acct.id);
      assert.equal(books.reserved, 0n, 'every lease went back');
      const leases = await sql<{ n: number }>`select count(*)::integer as n from credit_reservations where account_id = ${acct.id}`.execute(one.t.deps.db);
      assert.equal(leases.rows[0]!.n, 0, 'no lease row is left');
      const usage = await sql<{ n: number; charges: number }>`
        select count(*)::integer as n,
          (select count(*)::integer from credit_ledger l where l.account_id = ${acct.id} and l.kind = 'charge') as charges
        from usage_records where account_id = ${acct.id}`.execute(one.t.deps.db);
      assert.equal(usage.rows[0]!.n, N + 1);
      assert.equal(usage.rows[0]!.charges, N + 1, 'every request has exactly one charge');
    } finally {
      release();
      if (!closed) await two.close();
      await one.close();
    }
  });

  // An instance that could not renew its lease for half the stale period and whose row another
  // instance swept makes a new lease row; a request still holding from the old row must not
  // add its hold to the new one when it ends.
  it('a hold of a swept lease ending after a new lease was taken does not let requests hold beyond the new lease', async () => {
    const clock = manualClock();
    const g = await startGateway({ env: ENV, clock });
    let releaseFirst!: () => void;
    const first = new Promise<void>((r) => (releaseFirst = r));
    try {
      const acct = await createTestAccount(g.t, { credits: 10 });
      const ask = (i: number) =>
        g.client(acct.key).chat.completions.create({ model: 'svc-fast', max_tokens: 1000, messages: [{ role: 'user', content: `q${i}` }] })
          .then(() => 200, (e: { status?: number }) => e.status ?? 0);
      g.openai.chat.enqueue({ text: 'a', waitFor: first });
      const a = ask(0);
      await waitFor(() => g.openai.requests.length === 1, { message: 'the first request never reached the upstream' });
      // Another instance's sweep takes the lease for a dead instance's; this one, its renewals
      // missed (the clock moves past its trust), goes to the database before the next hold.
      assert.equal(await releaseStaleHolds(g.t.deps.db, 0), 1);
      clock.advance(31_000);
      g.openai.chat.enqueue({ text: 'b' });
      assert.equal(await ask(1), 200);
      releaseFirst();
      assert.equal(await a, 200);
      await g.t.deps.billing.written();
      // Each of these costs more than its hold (an upstream that ignored the cap): the account
      // pays its whole hold, so the holds together are what the lease must cover.
      const M = 6;
      g.openai.chat.enqueue(...Array.from({ length: M }, (_, i) => ({ text: `c${i}`, usage: { input: 10, cached: 0, output: 3000 } })));
      const rest = await Promise.all(Array.from({ length: M }, (_, i) => ask(2 + i)));
      assert.ok(rest.every((s) => s === 200 || s === 402), rest.join(','));
      await g.t.deps.billing.written();
      const books = await creditBooks(g.t, acct.id);
      assert.ok(books.credits >= 0n, `the balance stays at or above zero: ${books.credits}`);
      const usage = await sql<{ n: number; charges: number }>`
        select count(*)::integer as n,
          (select count(*)::integer from credit_ledger l where l.account_id = ${acct.id} and l.kind = 'charge') as charges
        from usage_records where account_id = ${acct.id}`.execute(g.t.deps.db);
      const answered = 2 + rest.filter((s) => s === 200).length;
      assert.equal(usage.rows[0]!.n, answered, 'every answered request has its usage record');
      assert.equal(usage.rows[0]!.charges, answered, 'every answered request has exactly one charge');
    } finally {
      releaseFirst();
      await g.close();
    }
  });
});

describe('money audit 26: a mix of request fates on two instances', () => {
  // Streams paused at the upstream, failing after their first events, cut by the upstream and by
  // the client, a fallback, a grant and a negative grant, and a key revoked while its streams run:
  // every usage record gets exactly one charge (none when it cost nothing), the ledger sums to the
  // balance and nothing stays reserved.
  it('settles every request exactly once whatever ended it', async () => {
    const one = await startGateway({ env: ENV });
    const two = await startGateway({ env: ENV, database: one.t.database });
    let release!: () => void;
    const until = new Promise<void>((r) => (release = r));
    let closed = false;
    try {
      const acct = await createTestAccount(one.t, { credits: 4 });
      const k2 = await one.t.app.inject({ method: 'POST', url: `/admin/accounts/${acct.id}/keys`, headers: one.t.admin, payload: { name: 'second' } });
      const second = k2.json() as { id: number; key: string };
      const big = { input: 20, cached: 0, output: 2000 };
      for (const g of [one, two]) {
        g.openai.chat.enqueue(
          { text: 'paused one two three', pauseAfter: { events: 2, until }, usage: big },
          { text: 'paused four five six', pauseAfter: { events: 2, until } },
          { text: 'fails after the first', streamErrorAfter: { events: 2 } },
          { text: 'cut by the upstream', cutAfter: 2 },
          { text: 'plain', usage: big },
          { text: 'plain two' },
          { text: 'plain three', usage: big },
          { text: 'plain four' },
        );
        g.anthropic.chat.enqueue({ error: { status: 500, message: 'overloaded' } });
      }
      const stream = async (g: typeof one, key: string, i: number): Promise<string> => {
        try {
          const s = await g.client(key).chat.completions.create({ model: 'svc-fast', max_tokens: 500, stream: true, stream_options: { include_usage: true }, messages: [{ role: 'user', content: `s${i}` }] });
          let n = 0;
          for await (const chunk of s) {
            void chunk;
            // The client walks away mid-stream.
            if (i % 4 === 0 && ++n === 1) break;
          }
          return 'streamed';
        } catch (e) {
          return `error ${(e as { status?: number }).status ?? 'stream'}`;
        }
      };
      const plain = (g: typeof one, key: string, i: number, model = 'svc-fast') =>
        g.client(key).chat.completions.create({ model, max_tokens: 500, messages: [{ role: 'user', content: `p${i}` }] }).then(() => 'ok', (e: { status?: number }) => `error ${e.status}`);
      const runs: Promise<string>[] = [];
      for (const [n, g] of [one, two].entries()) {
        for (let i = 0; i < 6; i++) runs.push(stream(g, i % 2 ? second.key : acct.key, i + n));
        runs.push(plain(g, acct.key, n), plain(g, second.key, n + 2), plain(g, acct.key, n + 4, 'svc-pro'));
      }
      await waitFor(() => one.openai.requests.length + two.openai.requests.length >= 4, { message: 'the streams never reached the upstreams' });
      const grants = await Promise.all([
        one.t.app.inject({ method: 'POST', url: `/admin/accounts/${acct.id}/credits`, headers: one.t.admin, payload: { credits: 1 } }),
        two.t.app.inject({ method: 'POST', url: `/admin/accounts/${acct.id}/credits`, headers: two.t.admin, payload: { credits: -0.5 } }),
        two.t.app.inject({ method: 'DELETE', url: `/admin/keys/${second.id}`, headers: two.t.admin }),
      ]);
      assert.deepEqual(grants.map((r) => r.statusCode), [200, 200, 200]);
      release();
      const outcomes = await Promise.all(runs);
      assert.ok(outcomes.every((o) => ['streamed', 'ok', 'error 402', 'error 401', 'error 502', 'error stream'].includes(o)), outcomes.join(','));
      await one.t.deps.apiKeys.barrier();
      await two.t.deps.apiKeys.barrier();
      for (const g of [one, two]) assert.equal(await plain(g, second.key, 9), 'error 401', 'the revoked key is refused on both instances');
      await one.t.deps.billing.written();
      await two.t.deps.billing.written();
      await two.close();
      await one.t.deps.billing.close();
      closed = true;
      const books = await creditBooks(one.t, acct.id);
      assert.equal(books.reserved, 0n, 'every lease went back');
      const rows = await sql<{ id: string; cost: bigint; charges: number; charged: bigint; shortfalls: number }>`
        select u.id::text, u.cost,
          (select count(*)::integer from credit_ledger l where l.usage_id = u.id and l.kind = 'charge') as charges,
          (select coalesce(sum(amount), 0)::bigint from credit_ledger l where l.usage_id = u.id and l.kind = 'charge') as charged,
          (select count(*)::integer from credit_ledger l where l.usage_id = u.id and l.kind = 'operator_cost') as shortfalls
        from usage_records u where u.account_id = ${acct.id}`.execute(one.t.deps.db);
      assert.ok(rows.rows.length >= outcomes.filter((o) => o === 'ok' || o === 'streamed').length);
      for (const r of rows.rows) {
        assert.equal(r.charges, r.cost > 0n ? 1 : 0, `usage ${r.id}: one charge row`);
        assert.equal(r.charged, -r.cost, `usage ${r.id}: the charge row is the cost`);
        assert.ok(r.shortfalls <= 1);
      }
    } finally {
      release();
      if (!closed) await two.close();
      await one.close();
    }
  });
});

/**
 * One wallet's trades, withdrawals (two of them one Idempotency-Key sent to both instances at
 * once), a deposit and the market's resolve, all at once over real sockets on two instances of
 * one database: nothing beyond the balance is spent or locked, the books balance, the keyed
 * withdrawal happens at most once and every payout recomputes from market-math.md.
 */
describe(`money audit 26: market races on two instances (${onServer ? 'PostgreSQL server' : 'PGlite'})`, () => {
  const clock = marketClock(Date.now());
  const env = { RATE_LIMIT_MARKET_PER_MINUTE: '1000000', SECRETS_KEY: randomBytes(32).toString('base64') };
  const agent = new Agent({ connections: 128, pipelining: 1 });
  let database: DatabaseHandle & { url: string | null };
  let second: DatabaseHandle | null = null;
  let a: TestApp;
  let b: TestApp;

  before(async () => {
    database = await freshDatabase();
    const redisPrefix = `t${randomBytes(6).toString('hex')}`;
    a = await startTestApp({ database, clock, redisPrefix, env });
    second = database.url ? await openSameDatabase(database.url) : null;
    b = await startTestApp({ database: second ? { ...second, url: database.url } : database, clock, redisPrefix, env });
    await a.listen();
    await b.listen();
  });
  after(async () => {
    await agent.close();
    await a?.close();
    await b?.close();
    if (second) await second.close();
    await database?.close();
  });

  async function http(inst: TestApp, req: { url: string; method: string; headers: Record<string, string>; payload?: string }): Promise<Answer> {
    const res = await request(inst.url + req.url, { method: req.method as 'POST', headers: req.headers, body: req.payload, dispatcher: agent });
    return { status: res.statusCode, body: (await res.body.json()) as Record<string, unknown>, headers: res.headers };
  }
  const admin = (inst: TestApp, url: string, body?: unknown) =>
    http(inst, { method: 'POST', url, headers: { ...inst.admin, 'content-type': 'application/json' }, payload: JSON.stringify(body ?? {}) });

  it('trades, withdrawals, a keyed withdrawal on both instances, a deposit and a resolve racing', async () => {
    const ma = marketHttp(a, clock);
    const w = await ma.trader('10');
    const other = await ma.trader('10');
    const market = await ma.createMarket();
    // The other side, so the resolve has losers and winners.
    assert.equal((await ma.trade(other.viaKey, tradeBody(other.wallet, market.id, 'no', 4))).status, 200);
    clock.advance(30_000);
    const now = nowSeconds(clock.now());
    const sign = (signer: MarketSigner, url: string, body: unknown, ts: number, headers?: Record<string, string>) =>
      signedRequest(signer, { method: 'POST', url, body, timestamp: ts, ...(headers ? { headers } : {}) });
    const calls: { kind: string; run: () => Promise<Answer> }[] = [];
    for (let i = 0; i < 12; i++) {
      const req = await sign(i % 2 ? w.viaKey : w.viaWallet, '/api/pool/trade', tradeBody(w.wallet, market.id, i % 3 ? 'yes' : 'no', 1), now - Math.floor(i / 2));
      calls.push({ kind: 'trade', run: () => http(i % 2 ? a : b, req) });
    }
    for (let i = 0; i < 3; i++) {
      const req = await sign(i % 2 ? w.viaKey : w.viaWallet, '/api/pool/withdraw', { wallet_addr: w.wallet, amount: 4 }, now - 10 - i, { 'idempotency-key': `w-${i}-${randomBytes(4).toString('hex')}` });
      calls.push({ kind: 'withdraw', run: () => http(i % 2 ? b : a, req) });
    }
    const keyed = { 'idempotency-key': `both-${randomBytes(4).toString('hex')}` };
    const keyedBody = { wallet_addr: w.wallet, amount: 2 };
    const k1 = await sign(w.viaKey, '/api/pool/withdraw', keyedBody, now, keyed);
    const k2 = await sign(w.viaWallet, '/api/pool/withdraw', keyedBody, now, keyed);
    calls.push({ kind: 'keyed', run: () => http(a, k1) }, { kind: 'keyed', run: () => http(b, k2) });
    calls.push({ kind: 'deposit', run: () => admin(b, `/admin/wallets/${w.wallet}/deposit`, { amount: '2' }) });
    calls.push({ kind: 'resolve', run: () => admin(a, `/admin/markets/${market.id}/resolve`, { outcome: 'yes' }) });
    const answers = await Promise.all(calls.map((c) => c.run()));

    const byKind = (k: string) => answers.filter((_, i) => calls[i]!.kind === k);
    for (const r of byKind('trade')) assert.ok(r.status === 200 || ['Insufficient balance', 'Market not active'].includes(String(r.body.error)), JSON.stringify(r.body));
    for (const r of [...byKind('withdraw'), ...byKind('keyed')]) assert.ok(r.status === 200 || r.body.error === 'Insufficient balance', JSON.stringify(r.body));
    assert.equal(byKind('deposit')[0]!.status, 200);
    assert.equal(byKind('resolve')[0]!.status, 200, JSON.stringify(byKind('resolve')[0]!.body));
    const [r1, r2] = byKind('keyed');
    if (r1!.status === 200 && r2!.status === 200) {
      assert.deepEqual(r1!.body, r2!.body);
      assert.equal([r1!, r2!].filter((r) => r.headers['idempotent-replayed'] === 'true').length, 1);
    }

    const db = a.deps.db;
    const wallet = (await db.selectFrom('wallets').selectAll().where('address', '=', w.wallet.toLowerCase()).executeTakeFirstOrThrow());
    const pending = await db.selectFrom('withdrawals').select(['amount']).where('wallet', '=', w.wallet.toLowerCase()).execute();
    assert.equal(pending.filter((p) => p.amount === 2n * USDC).length, byKind('keyed').some((r) => r.status === 200) ? 1 : 0, 'the keyed withdrawal happened at most once');
    assert.equal(pending.length, [...byKind('withdraw'), ...byKind('keyed')].filter((r) => r.status === 200).length - (r1!.status === 200 && r2!.status === 200 ? 1 : 0));
    assert.equal(wallet.locked, pending.reduce((s, p) => s + p.amount, 0n), 'locked is the pending withdrawals');
    assert.ok(wallet.locked <= wallet.balance && wallet.balance >= 0n, `balance ${wallet.balance}, locked ${wallet.locked}`);
    const trades = await db.selectFrom('trades').select(['amount']).where('wallet', '=', w.wallet.toLowerCase()).execute();
    assert.equal(trades.length, byKind('trade').filter((r) => r.status === 200).length);

    // Every payout from market-math.md, "Resolution to outcome w".
    const positions = await db.selectFrom('positions').selectAll().where('market_id', '=', market.id).execute();
    const T = positions.reduce((s, p) => s + p.cost_basis, 0n);
    const winners = positions.filter((p) => p.outcome === 'yes' && p.shares > 0n);
    const W = winners.reduce((s, p) => s + p.cost_basis, 0n);
    const H = winners.reduce((s, p) => s + p.shares, 0n);
    const L = T - W;
    const fee = (L * 500n) / 10_000n;
    const D = L - fee;
    for (const p of positions) {
      const expected = H === 0n ? p.cost_basis : p.outcome === 'yes' ? p.cost_basis + (D * p.shares) / H : 0n;
      assert.equal(p.payout, expected, `payout of ${p.wallet} on ${p.outcome}`);
    }
    const paid = positions.reduce((s, p) => s + (p.payout ?? 0n), 0n);
    const m = await db.selectFrom('markets').select(['settled_paid', 'settled_fee', 'settled_dust', 'escrow']).where('id', '=', market.id).executeTakeFirstOrThrow();
    assert.equal(m.settled_paid, paid);
    assert.equal((m.settled_paid ?? 0n) + (m.settled_fee ?? 0n) + (m.settled_dust ?? 0n), T);
    assert.equal(m.escrow, 0n);
    // The wallet's balance: deposits less stakes plus what the market paid it.
    const received = positions.filter((p) => p.wallet === w.wallet.toLowerCase()).reduce((s, p) => s + (p.payout ?? 0n), 0n);
    assert.equal(wallet.balance, 12n * USDC - trades.reduce((s, t) => s + t.amount, 0n) + received);
    await assertBooksBalanced(db);
  });
});
