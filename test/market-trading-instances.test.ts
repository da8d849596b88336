import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, afterEach, before, describe, it } from 'node:test';
import { Agent, request } from 'undici';
import type { DatabaseHandle } from '../src/storage/database.ts';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { freshDatabase, openSameDatabase } from './helpers/database.ts';
import { assertBooksBalanced, manualClock, onServer, USDC } from './helpers/market.ts';
import { nowSeconds, signedRequest, tradeBody, type MarketSigner, type SignedRequest } from './helpers/market-client.ts';
import { failure, marketHttp, outcomeOf, type Answer, type Trader } from './helpers/market-http.ts';

const clock = manualClock(Date.now());

/**
 * Two app instances on one database and (when REDIS_URL is set) one Redis, as behind a load
 * balancer. Requests go over real sockets; on a PostgreSQL server they run truly in parallel.
 */
describe(`market trading on two instances (${onServer ? 'PostgreSQL server' : 'PGlite'}${process.env.REDIS_URL ? ' + Redis' : ''})`, () => {
  const env = { RATE_LIMIT_MARKET_PER_MINUTE: '1000000', SECRETS_KEY: randomBytes(32).toString('base64') };
  const redisPrefix = `t${randomBytes(6).toString('hex')}`;
  const agent = new Agent({ connections: 256, pipelining: 1 });
  let database: DatabaseHandle & { url: string | null };
  let second: DatabaseHandle | null = null;
  let a: TestApp;
  let b: TestApp;
  let ma: ReturnType<typeof marketHttp>;

  before(async () => {
    database = await freshDatabase();
    a = await startTestApp({ database, clock, redisPrefix, env });
    second = database.url ? await openSameDatabase(database.url) : null;
    b = await startTestApp({ database: second ? { ...second, url: database.url } : database, clock, redisPrefix, env });
    await a.listen();
    await b.listen();
    ma = marketHttp(a, clock);
  });
  after(async () => {
    await agent.close();
    await a?.close();
    await b?.close();
    if (second) await second.close();
    await database.close();
  });
  afterEach(() => assertBooksBalanced(a.deps.db));

  /** Sends a signed request to an instance over HTTP. */
  async function http(inst: TestApp, req: SignedRequest): Promise<Answer> {
    const res = await request(inst.url + req.url, { method: req.method, headers: req.headers, body: req.payload, dispatcher: agent });
    return { status: res.statusCode, body: (await res.body.json()) as Record<string, unknown>, headers: res.headers };
  }
  const signTrade = (signer: MarketSigner, body: unknown, timestamp: number, headers?: Record<string, string>) =>
    signedRequest(signer, { method: 'POST', url: '/api/pool/trade', body, timestamp, headers });

  /** Counts answers by status and error. */
  function tally(answers: Answer[]): Record<string, number> {
    const out: Record<string, number> = {};
    for (const r of answers) {
      const k = r.status === 200 ? 'ok' : `${r.status} ${String(r.body.error)}`;
      out[k] = (out[k] ?? 0) + 1;
    }
    return out;
  }

  it('refuses on one instance a signature already used on the other', async () => {
    const w = await ma.trader('20');
    const market = await ma.createMarket();
    const body = tradeBody(w.wallet, market.id, 'yes', 2);
    for (const signer of [w.viaKey, w.viaWallet]) {
      clock.advance(1000);
      const signed = await signTrade(signer, body, nowSeconds(clock.now()));
      assert.equal((await http(a, signed)).status, 200);
      assert.deepEqual(outcomeOf(await http(b, signed)), failure(401, 'Signature already used'));
      assert.deepEqual(outcomeOf(await http(a, signed)), failure(401, 'Signature already used'));
    }
    assert.deepEqual(await ma.moneyOf(w.wallet), { balance: 16n * USDC, trades: 2 });
  });

  it('lets exactly the covered trades through: 100 concurrent trades of 1 USDC from a wallet holding 10', async () => {
    const w = await ma.trader('10');
    const keys = [w.key, await ma.issueKey(w.wallet), await ma.issueKey(w.wallet), await ma.issueKey(w.wallet)];
    const market = await ma.createMarket();
    clock.advance(30_000);
    const now = nowSeconds(clock.now());
    // 100 distinct signed requests of one body: 4 keys x 25 seconds of the window.
    const requests = await Promise.all(
      Array.from({ length: 100 }, (_, i) => signTrade({ apiKey: keys[i % 4]! }, tradeBody(w.wallet, market.id, i % 3 ? 'yes' : 'no', 1), now - Math.floor(i / 4))),
    );
    const answers = await Promise.all(requests.map((r) => http(a, r)));
    assert.deepEqual(tally(answers), { ok: 10, '400 Insufficient balance': 90 });
    const remaining = answers.filter((r) => r.status === 200).map((r) => (r.body.data as { remaining_balance: number }).remaining_balance);
    assert.deepEqual(remaining.sort((x, y) => x - y), [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    assert.deepEqual(await ma.moneyOf(w.wallet), { balance: 0n, trades: 10 });
  });

  it('never overspends across instances: concurrent trades of five wallets split over both', async () => {
    const traders: Trader[] = [];
    for (let i = 0; i < 5; i++) traders.push(await ma.trader('10'));
    const markets = [await ma.createMarket(), await ma.createMarket({ market_type: 'threeway' })];
    clock.advance(30_000);
    const now = nowSeconds(clock.now());
    const requests: [TestApp, SignedRequest][] = [];
    for (const [n, w] of traders.entries()) {
      for (let i = 0; i < 24; i++) {
        // Two methods x 12 seconds x 2 sides: 24 distinct signed requests per wallet, half on each instance.
        const signer = i % 2 ? w.viaKey : w.viaWallet;
        const market = markets[(i + n) % 2]!;
        const req = await signTrade(signer, tradeBody(w.wallet, market.id, i % 4 < 2 ? 'yes' : 'no', 2), now - Math.floor(i / 4) - n);
        requests.push([i % 3 ? a : b, req]);
      }
    }
    const answers = await Promise.all(requests.map(([inst, r]) => http(inst, r)));
    assert.deepEqual(tally(answers), { ok: 25, '400 Insufficient balance': 95 });
    for (const w of traders) assert.deepEqual(await ma.moneyOf(w.wallet), { balance: 0n, trades: 5 });
  });

  it('moves money once for one Idempotency-Key sent to both instances at once', async () => {
    const w = await ma.trader('50');
    const market = await ma.createMarket();
    for (let round = 0; round < 3; round++) {
      clock.advance(1000);
      const now = nowSeconds(clock.now());
      const body = tradeBody(w.wallet, market.id, 'yes', 3);
      const headers = { 'idempotency-key': `both-${round}-${randomBytes(4).toString('hex')}` };
      const [r1, r2] = await Promise.all([http(a, await signTrade(w.viaKey, body, now, headers)), http(b, await signTrade(w.viaWallet, body, now, headers))]);
      assert.equal(r1.status, 200, JSON.stringify(r1.body));
      assert.equal(r2.status, 200, JSON.stringify(r2.body));
      assert.deepEqual(r1.body, r2.body);
      assert.equal([r1, r2].filter((r) => r.headers['idempotent-replayed'] === 'true').length, 1);
    }
    assert.deepEqual(await ma.moneyOf(w.wallet), { balance: 41n * USDC, trades: 3 });
  });

  it('accepts on one instance a key issued on the other, and honours a revocation on both', async () => {
    const w = await ma.trader('10');
    const market = await ma.createMarket();
    clock.advance(1000);
    const issued = await http(a, await signedRequest(w.viaWallet, { method: 'POST', url: '/api/keys', timestamp: nowSeconds(clock.now()) }));
    assert.equal(issued.status, 201);
    const key = { apiKey: issued.body.data as { api_key: string; api_secret: string } };
    const tradeOn = async (inst: TestApp) => {
      clock.advance(1000);
      return http(inst, await signTrade(key, tradeBody(w.wallet, market.id, 'no', 1), nowSeconds(clock.now())));
    };
    assert.equal((await tradeOn(b)).status, 200, 'known on the other instance at once');
    assert.equal((await tradeOn(a)).status, 200);

    clock.advance(1000);
    const revoke = await signedRequest(key, { method: 'DELETE', url: `/api/keys/${key.apiKey.api_key}`, timestamp: nowSeconds(clock.now()) });
    assert.equal((await http(a, revoke)).status, 200);
    assert.deepEqual(outcomeOf(await tradeOn(a)), failure(401, 'Invalid API key'), 'at once where revoked');
    clock.advance(5_000);
    assert.deepEqual(outcomeOf(await tradeOn(b)), failure(401, 'Invalid API key'), 'on the other within the cache time (5 s)');
    assert.deepEqual(await ma.moneyOf(w.wallet), { balance: 8n * USDC, trades: 2 });
  });
});
