import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { randomBytes } from 'node:crypto';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { manualClock } from './helpers/market.ts';
import { signedRequest, tradeBody, type ApiKeyCredentials } from './helpers/market-client.ts';
import { marketAuditSuite } from './helpers/market-socket.ts';

/**
 * The tenth audit of the market API against market-api.md and market-math.md
 * (docs/api-decisions.md, "Market API: tenth audit"), over a real socket, as a trader, a bot and
 * an operator meet it.
 */
describe('market API against market-api.md (tenth audit, over HTTP)', () => {
  const { call, admin, ok, send, trader, market: marketIn } = marketAuditSuite();
  const market = (fields: Record<string, unknown> = {}) => marketIn('audit10', fields);

  /** USDC as the API shows it (a JSON number) to units. */
  const units = (usdc: number): bigint => BigInt(Math.round(usdc * 1e6));
  const usdc = (u: bigint): number => Number(u) / 1e6;

  it('answers every trade of a sequence over three markets, then the settlements, portfolios and profiles, as market-math.md recomputes them in bigint', async () => {
    type Outcome = 'yes' | 'no' | 'draw';
    interface Model {
      id: number;
      title: string;
      outcomes: Outcome[];
      seed: Record<string, bigint>;
      pool: Record<string, bigint>;
      shares: Record<string, bigint>;
    }
    const open = async (fields: Record<string, unknown>): Promise<Model> => {
      const m = (await market(fields)) as unknown as { id: number; title: string; seeds: Record<string, number> };
      const outcomes = Object.keys(m.seeds).sort((a, b) => ['yes', 'no', 'draw'].indexOf(a) - ['yes', 'no', 'draw'].indexOf(b)) as Outcome[];
      const zero = () => Object.fromEntries(outcomes.map((o) => [o, 0n]));
      return { id: m.id, title: m.title, outcomes, seed: Object.fromEntries(outcomes.map((o) => [o, units(m.seeds[o]!)])), pool: zero(), shares: zero() };
    };
    const a = await open({ seed_liquidity: 10, opening_prices: { yes: 0.37, no: 0.63 } });
    const b = await open({ market_type: 'threeway' });
    const c = await open({ market_type: 'updown', seed_liquidity: 3 });
    assert.deepEqual([a.seed.yes, a.seed.no], [3_700_000n, 6_300_000n]);
    assert.deepEqual([b.seed.yes, b.seed.no, b.seed.draw], [33_333_334n, 33_333_333n, 33_333_333n]);

    const price = (m: Model, o: Outcome): number => {
      const total = m.outcomes.reduce((s, x) => s + m.pool[x]! + m.seed[x]!, 0n);
      return Number(m.pool[o]! + m.seed[o]!) / Number(total);
    };

    const people = [await trader('250'), await trader('250'), await trader('250')];
    const balance = people.map(() => 250_000_000n);
    /** (market, person, outcome) -> [cost, shares] */
    const positions = new Map<string, { m: Model; who: number; o: Outcome; cost: bigint; shares: bigint }>();
    const script: [Model, number, Outcome, string][] = [
      [a, 0, 'yes', '12.345678'],
      [b, 1, 'draw', '7'],
      [c, 2, 'no', '1'],
      [a, 1, 'no', '3.000001'],
      [b, 0, 'yes', '40.5'],
      [a, 2, 'no', '19.999999'],
      [c, 0, 'yes', '2.25'],
      [b, 2, 'no', '1.000001'],
      [a, 0, 'yes', '1'],
      [b, 1, 'draw', '13.131313'],
      [c, 1, 'yes', '100'],
      [a, 1, 'yes', '5.5'],
      [b, 0, 'draw', '2'],
      [c, 2, 'no', '17.654321'],
    ];
    let k = 0;
    for (const [m, who, o, amount] of script) {
      const p = people[who]!;
      const body = { wallet_addr: p.wallet, market_id: m.id, side: o, amount: Number(amount) };
      const answer = await ok(send(k++ % 2 === 0 ? p.viaKey : p.viaWallet, { method: 'POST', url: '/api/pool/trade', body }));
      // market-math.md, "A trade", in units.
      const stake = BigInt(amount.replace('.', '').padEnd(amount.includes('.') ? amount.indexOf('.') + 6 : amount.length + 6, '0'));
      const S = m.pool[o]! + m.seed[o]!;
      const all = m.outcomes.reduce((s, x) => s + m.pool[x]! + m.seed[x]!, 0n);
      const O = all - S;
      const shares = BigInt(Math.floor(Number(stake) + Number(O) * Math.log1p(Number(stake) / Number(S))));
      m.pool[o]! += stake;
      m.shares[o]! += shares;
      balance[who]! -= stake;
      const key = `${m.id}:${who}:${o}`;
      const pos = positions.get(key) ?? { m, who, o, cost: 0n, shares: 0n };
      pos.cost += stake;
      pos.shares += shares;
      positions.set(key, pos);
      const volume = m.outcomes.reduce((s, x) => s + m.pool[x]!, 0n);
      const expected: Record<string, unknown> = {
        trade_id: answer.data.trade_id,
        market_id: m.id,
        side: o,
        amount: usdc(stake),
        shares: usdc(shares),
        price: Number(stake) / Number(shares),
        new_yes_price: price(m, 'yes'),
        new_no_price: price(m, 'no'),
        ...(m.outcomes.includes('draw') ? { new_draw_price: price(m, 'draw') } : {}),
        remaining_balance: usdc(balance[who]!),
        pool: {
          yes_pool: usdc(m.pool.yes!),
          no_pool: usdc(m.pool.no!),
          ...(m.outcomes.includes('draw') ? { draw_pool: usdc(m.pool.draw!) } : {}),
          total_volume: usdc(volume),
        },
      };
      assert.deepEqual(answer.data, expected, `trade ${k}: ${amount} on ${o} of market ${m.id}`);
    }

    // Resolve a to no (two winners of one side, one loser with two stakes), cancel b, leave c open.
    const settleA = (() => {
      const T = a.pool.yes! + a.pool.no!;
      const W = a.pool.no!;
      const H = a.shares.no!;
      const L = T - W;
      const fee = (L * 500n) / 10_000n;
      const D = L - fee;
      const pay = new Map<number, bigint>();
      let shared = 0n;
      for (const pos of positions.values()) {
        if (pos.m !== a || pos.o !== 'no') continue;
        const part = (D * pos.shares) / H;
        shared += part;
        pay.set(pos.who, pos.cost + part);
      }
      return { T, fee, dust: D - shared, pay };
    })();
    const resolved = await ok(admin('POST', `/admin/markets/${a.id}/resolve`, { outcome: 'no' }));
    assert.deepEqual(resolved.settlement, {
      mode: 'resolved',
      outcome: 'no',
      total: usdc(settleA.T),
      paid: usdc([...settleA.pay.values()].reduce((s, x) => s + x, 0n)),
      fee: usdc(settleA.fee),
      dust: usdc(settleA.dust),
      positions: 4,
      positions_paid: 2,
    });
    for (const [who, amount] of settleA.pay) balance[who]! += amount;
    const cancelled = await ok(admin('POST', `/admin/markets/${b.id}/cancel`));
    const bTotal = b.pool.yes! + b.pool.no! + b.pool.draw!;
    assert.equal(cancelled.settlement.paid, usdc(bTotal));
    for (const pos of positions.values()) if (pos.m === b) balance[pos.who]! += pos.cost;

    for (const [who, p] of people.entries()) {
      const bal = (await ok(call('GET', `/api/pool/balance/${p.wallet}`))).data;
      assert.equal(bal.balance, usdc(balance[who]!), `balance of person ${who}`);
      assert.equal(bal.available, usdc(balance[who]!));
      // The ledger re-adds to the balance, and each settled position has its one entry.
      const ledger = (await ok(call('GET', `/api/pool/ledger/${p.wallet}?limit=100`))).data as { type: string; amount: number; market_id?: number }[];
      assert.equal(ledger.reduce((s, e) => s + units(e.amount), 0n), balance[who]!);
      const settlements = ledger.filter((e) => e.type === 'settlement');
      assert.deepEqual(
        settlements.map((e) => [e.market_id, units(e.amount)]),
        settleA.pay.has(who) ? [[a.id, settleA.pay.get(who)!]] : [],
      );
      const refunds = ledger.filter((e) => e.type === 'refund').map((e) => units(e.amount)).sort();
      const expectedRefunds = [...positions.values()].filter((x) => x.m === b && x.who === who).map((x) => x.cost).sort();
      assert.deepEqual(refunds, expectedRefunds);

      // Portfolio: only c's positions are open, marked at c's prices (market-math.md, "Marks").
      const mine = [...positions.values()].filter((x) => x.who === who);
      const openMine = mine.filter((x) => x.m === c);
      const portfolio = (await ok(call('GET', `/api/portfolio/${p.wallet}`))).data as { side: string }[];
      const marks = openMine.map((x) => {
        const cp = price(c, x.o);
        const value = BigInt(Math.round(Number(x.shares) * cp));
        return { market_id: c.id, market_title: c.title, side: x.o.toUpperCase(), shares: usdc(x.shares), cost_basis: usdc(x.cost), current_price: cp, current_value: usdc(value), pnl: usdc(value - x.cost), pnl_percent: (Number(value - x.cost) / Number(x.cost)) * 100, avg_price: Number(x.cost) / Number(x.shares), status: 'active', pnl_units: value - x.cost };
      });
      assert.deepEqual(
        [...portfolio].sort((l, r) => l.side.localeCompare(r.side)),
        marks.map(({ pnl_units: _, ...x }) => x).sort((l, r) => l.side.localeCompare(r.side)),
      );
      // Realized: payouts and refunds minus stakes on a and b; unrealized: the marks of c.
      const realized = mine.filter((x) => x.m !== c).reduce((s, x) => s - x.cost, 0n) + (settleA.pay.get(who) ?? 0n) + mine.filter((x) => x.m === b).reduce((s, x) => s + x.cost, 0n);
      const unrealized = marks.reduce((s, x) => s + x.pnl_units, 0n);
      const stats = (await ok(call('GET', `/api/portfolio/${p.wallet}/stats`))).data;
      assert.equal(stats.realized_pnl, usdc(realized), `realized of ${who}`);
      assert.equal(stats.unrealized_pnl, usdc(unrealized));
      assert.equal(stats.total_pnl, usdc(realized + unrealized));
      const settledHeld = new Set(mine.filter((x) => x.m !== c).map((x) => x.m.id));
      const won = settleA.pay.has(who) ? 1 : 0;
      assert.equal(stats.win_rate, settledHeld.size === 0 ? 0 : won / settledHeld.size);
      const profile = (await ok(call('GET', `/api/users/${p.wallet}`))).data;
      assert.equal(profile.total_pnl, stats.total_pnl);
      assert.equal(profile.total_volume, usdc(mine.reduce((s, x) => s + x.cost, 0n)));
      assert.equal(profile.markets_traded, new Set(mine.map((x) => x.m.id)).size);
      assert.equal(profile.win_rate, stats.win_rate);
    }
    // The leaderboard agrees with every profile, rank included.
    const board = (await ok(call('GET', '/api/users/leaderboard?limit=100'))).data as { wallet: string; rank: number; total_pnl: number }[];
    for (const p of people) {
      const row = board.find((x) => x.wallet === p.wallet.toLowerCase());
      const profile = (await ok(call('GET', `/api/users/${p.wallet}`))).data;
      assert.deepEqual([row?.rank, row?.total_pnl], [profile.rank, profile.total_pnl]);
    }
  });

  it('refuses a revoked API key on every instance as soon as the revocation commits, not once a cached lookup expires', async () => {
    // Two instances of one database, sharing the sealing key. The second's clock stands still, so
    // its cached lookup never expires: only the revocation's notice can make it refuse the key.
    const secrets = { SECRETS_KEY: randomBytes(32).toString('base64'), RATE_LIMIT_MARKET_PER_MINUTE: '1000000' };
    const first = await startTestApp({ env: secrets });
    const clock = manualClock(Date.now());
    const second = await startTestApp({ env: secrets, database: first.database, clock });
    try {
      const seconds = Math.floor(clock.now() / 1000);
      const wallet = '0x' + randomBytes(20).toString('hex');
      const issued = await first.app.inject({ method: 'POST', url: `/admin/wallets/${wallet}/api-keys`, headers: first.admin });
      assert.equal(issued.statusCode, 201, issued.body);
      const creds = issued.json() as ApiKeyCredentials;
      // A signed trade on a market that does not exist: past the credentials, 404; refused, 401.
      let n = 0;
      const tryKey = async (app: TestApp) => {
        const r = await signedRequest({ apiKey: creds }, { method: 'POST', url: '/api/pool/trade', body: tradeBody(wallet, 2_000_000_000 - n++, 'yes', 1), timestamp: seconds });
        const res = await app.app.inject({ method: r.method, url: r.url, headers: r.headers, payload: r.payload });
        return { status: res.statusCode, body: res.json() as { error: string } };
      };
      // The second instance has the key in its cache.
      assert.deepEqual(await tryKey(second), { status: 404, body: { success: false, error: 'Market not found' } });
      // The wallet revokes it through the first instance.
      const revoke = await signedRequest({ apiKey: creds }, { method: 'DELETE', url: `/api/keys/${creds.api_key}`, timestamp: seconds });
      const revoked = await first.app.inject({ method: revoke.method, url: revoke.url, headers: revoke.headers });
      assert.equal(revoked.statusCode, 200, revoked.body);
      assert.deepEqual(await tryKey(first), { status: 401, body: { success: false, error: 'Invalid API key' } });
      // The notice reaches the second instance in milliseconds; the loop only waits for it.
      let answer = await tryKey(second);
      for (let i = 0; i < 200 && answer.status !== 401; i++) {
        await new Promise((resolve) => setTimeout(resolve, 25));
        answer = await tryKey(second);
      }
      assert.deepEqual(answer, { status: 401, body: { success: false, error: 'Invalid API key' } });
    } finally {
      await second.close();
      await first.close();
    }
  });

  it('counts 200 a minute per client behind TRUST_PROXY, whatever the client writes into X-Forwarded-For', async () => {
    // A load balancer appends the address it saw to the X-Forwarded-For the client sent: the
    // client controls every entry but the last, so only the last names it.
    const behind = await startTestApp({ env: { TRUST_PROXY: 'true', RATE_LIMIT_MARKET_PER_MINUTE: '2' } });
    try {
      let forged = 0;
      const via = (client: string) =>
        behind.app.inject({ url: '/api/time', remoteAddress: '10.0.0.1', headers: { 'x-forwarded-for': `203.0.113.${++forged}, ${client}` } });
      assert.equal((await via('198.51.100.7')).statusCode, 200);
      assert.equal((await via('198.51.100.7')).statusCode, 200);
      const third = await via('198.51.100.7');
      assert.equal(third.statusCode, 429, 'a forged first entry does not buy a new budget');
      assert.deepEqual(third.json(), { success: false, error: 'Rate limit exceeded' });
      assert.equal((await via('198.51.100.8')).statusCode, 200, 'another client has its own budget');
    } finally {
      await behind.close();
    }
  });
});

