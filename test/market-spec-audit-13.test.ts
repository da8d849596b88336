import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { marketAuditSuite, marketOverSocket } from './helpers/market-socket.ts';
import { dashboardSession } from './helpers/dashboard-session.ts';
import { TEST_ADMIN_TOKEN } from './helpers/app.ts';

/**
 * The thirteenth audit of the market API against market-api.md and market-math.md
 * (docs/api-decisions.md, "Market API: thirteenth audit"), over a real socket, as a trader, a bot
 * and an operator meet it.
 */
describe('market API against market-api.md (thirteenth audit, over HTTP)', () => {
  const { base, call, admin, ok, send, trader, market } = marketAuditSuite();

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
  describe('a wallet lists its own API keys', () => {
    it('GET /api/keys, signed by either method, lists the live keys newest first without secrets, so a lost key can be revoked and the cap left', async () => {
      const p = await trader('1'); // holds one key the operator issued (p.viaKey)
      const other = await trader('1');
      const minted: string[] = [];
      // The operator's keys count toward the cap; two more are minted by the wallet itself.
      for (let i = 0; i < 17; i++) minted.push((await ok(admin('POST', `/admin/wallets/${p.wallet}/api-keys`), 201)).api_key);
      for (let i = 0; i < 2; i++) minted.push((await ok(send(p.viaWallet, { method: 'POST', url: '/api/keys' }), 201)).data.api_key);
      // At the cap of 20 live keys, and the bot lost the ids of the keys it minted.
      assert.deepEqual(await send(p.viaWallet, { method: 'POST', url: '/api/keys' }), {
        status: 400,
        body: { success: false, error: 'Too many API keys (at most 20 live keys per wallet)' },
      });
      const listed = await ok(send(p.viaWallet, { method: 'GET', url: '/api/keys' }));
      assert.equal(listed.success, true);
      assert.equal(listed.count, 20);
      const ids = listed.data.map((k: { api_key: string }) => k.api_key);
      const operatorKey = (p.viaKey as { apiKey: { api_key: string } }).apiKey.api_key;
      assert.deepEqual(ids, [...minted].reverse().concat(operatorKey), 'newest first, the operator\'s key included');
      for (const k of listed.data) {
        assert.deepEqual(Object.keys(k).sort(), ['api_key', 'created_at', 'last_used_at']);
        assert.match(k.created_at, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
        assert.ok(!JSON.stringify(k).includes('mks_'), 'no secret');
      }
      // Revoke one found in the list; the cap has room again; the revoked key is listed no more.
      assert.equal((await send(p.viaWallet, { method: 'DELETE', url: `/api/keys/${ids[5]}` })).status, 200);
      assert.equal((await send(p.viaWallet, { method: 'POST', url: '/api/keys' })).status, 201);
      const again = await ok(send(p.viaKey, { method: 'GET', url: '/api/keys' }));
      assert.equal(again.count, 20);
      assert.ok(!again.data.some((k: { api_key: string }) => k.api_key === ids[5]));
      // No key had signed anything at the first listing; this one was signed by the operator's key.
      assert.ok(listed.data.every((k: { last_used_at: string | null }) => k.last_used_at === null));
      const used = again.data.find((k: { api_key: string }) => k.api_key === operatorKey);
      assert.match(used.last_used_at, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
      // Another wallet sees only its own; unsigned is 401 like every signed route.
      const theirs = await ok(send(other.viaWallet, { method: 'GET', url: '/api/keys' }));
      assert.deepEqual(theirs.data.map((k: { api_key: string }) => k.api_key), [(other.viaKey as { apiKey: { api_key: string } }).apiKey.api_key]);
      assert.deepEqual(await call('GET', '/api/keys'), { status: 401, body: { success: false, error: 'Signature required' } });
    });
  });
  describe('every number of trades, estimates and settlements, recomputed in bigint from docs/pool-arithmetic.md', () => {
    type Outcome = 'yes' | 'no' | 'draw';
    interface Model {
      id: number;
      outcomes: Outcome[];
      seed: Record<string, bigint>;
      pool: Record<string, bigint>;
      held: Record<string, bigint>;
    }
    const ORDER: Outcome[] = ['yes', 'no', 'draw'];
    const open = async (category: string, fields: Record<string, unknown>): Promise<Model> => {
      const m = (await market(category, fields)) as unknown as { id: number; seeds: Record<string, number> };
      const outcomes = ORDER.filter((o) => o in m.seeds);
      const zero = () => Object.fromEntries(outcomes.map((o) => [o, 0n]));
      return { id: m.id, outcomes, seed: Object.fromEntries(outcomes.map((o) => [o, units(m.seeds[o]!)])), pool: zero(), held: zero() };
    };
    const total = (m: Model) => m.outcomes.reduce((sum, o) => sum + m.pool[o]! + m.seed[o]!, 0n); // T + V
    const price = (m: Model, o: Outcome) => Number(m.pool[o]! + m.seed[o]!) / Number(total(m));
    /** shares = floor(a + O * ln(1 + a / S)), in float64 then floored (docs/pool-arithmetic.md, "A trade"). */
    const sharesFor = (m: Model, o: Outcome, a: bigint) => {
      const S = m.pool[o]! + m.seed[o]!;
      const O = total(m) - S;
      return BigInt(Math.floor(Number(a) + Number(O) * Math.log1p(Number(a) / Number(S))));
    };
    /** D and the winners' share: fee = floor(L * 500 / 10000) on the losing pools only. */
    const distributed = (pool: Record<string, bigint>, w: Outcome) => {
      const T = Object.values(pool).reduce((x, y) => x + y, 0n);
      const L = T - pool[w]!;
      const fee = (L * 500n) / 10000n;
      return { T, L, fee, D: L - fee };
    };

    it('answers each trade and its estimate exactly, then pays the resolution to the unit and refunds the cancellation', async () => {
      // Wallets of their own with a signing helper of its own: its seconds are not those the
      // tests above used (each signed request of a helper takes a second of the last 25).
      const { send, trader } = marketOverSocket(base);
      const yn = await open('bigint-yn', { seed_liquidity: 7.5, opening_prices: { yes: 0.29, no: 0.71 } });
      const tw = await open('bigint-tw', { market_type: 'threeway', seed_liquidity: 20 });
      assert.deepEqual([yn.seed.yes, yn.seed.no], [2_175_000n, 5_325_000n]);
      const people = [await trader('300'), await trader('300'), await trader('300')];
      const balance = people.map(() => 300_000_000n);
      const positions = new Map<string, { who: number; m: Model; o: Outcome; cost: bigint; shares: bigint }>();
      const script: [Model, number, Outcome, string][] = [
        [yn, 0, 'yes', '1'],
        [tw, 1, 'draw', '4.444444'],
        [yn, 1, 'no', '17.000003'],
        [yn, 2, 'yes', '2.718281'],
        [tw, 0, 'yes', '9.99'],
        [tw, 2, 'no', '1.000001'],
        [yn, 0, 'yes', '33.333333'],
        [tw, 1, 'draw', '12'],
        [yn, 2, 'no', '1.5'],
      ];
      let k = 0;
      for (const [m, who, o, text] of script) {
        const a = units(Number(text));
        const p = people[who]!;
        // The estimate first: the same quote, and the payout were the market to resolve to o now.
        const shares = sharesFor(m, o, a);
        const after = { ...m, pool: { ...m.pool, [o]: m.pool[o]! + a } };
        const { D } = distributed(after.pool, o);
        const payoutIfWin = a + (D * shares) / (m.held[o]! + shares);
        const estimate = (await ok(call('POST', '/api/pool/estimate', { market_id: m.id, side: o, amount: Number(text) }))).data;
        const expectPrices = (prefix: string, model: Model) =>
          Object.fromEntries(model.outcomes.map((x) => [`${prefix}${x}_price`, price(model, x)]));
        assert.deepEqual(estimate, {
          market_id: m.id,
          side: o,
          amount: usdc(a),
          shares: usdc(shares),
          price: Number(a) / Number(shares),
          ...expectPrices('', m),
          ...expectPrices('new_', after),
          payout_if_win: usdc(payoutIfWin),
          profit_if_win: usdc(payoutIfWin - a),
        }, `estimate ${text} ${o}`);
        const signer = k++ % 2 === 0 ? p.viaKey : p.viaWallet;
        const answer = (await ok(send(signer, { method: 'POST', url: '/api/pool/trade', body: { wallet_addr: p.wallet, market_id: m.id, side: o, amount: Number(text) } }))).data;
        m.pool[o] = m.pool[o]! + a;
        m.held[o] = m.held[o]! + shares;
        balance[who] = balance[who]! - a;
        const key = `${who}:${m.id}:${o}`;
        const pos = positions.get(key) ?? { who, m, o, cost: 0n, shares: 0n };
        positions.set(key, { ...pos, cost: pos.cost + a, shares: pos.shares + shares });
        const { trade_id: _id, ...rest } = answer;
        assert.deepEqual(rest, {
          market_id: m.id,
          side: o,
          amount: usdc(a),
          shares: usdc(shares),
          price: Number(a) / Number(shares),
          ...expectPrices('new_', m),
          remaining_balance: usdc(balance[who]!),
          pool: {
            yes_pool: usdc(m.pool.yes!),
            no_pool: usdc(m.pool.no!),
            total_volume: usdc(m.outcomes.reduce((sum, x) => sum + m.pool[x]!, 0n)),
            ...(m.outcomes.includes('draw') ? { draw_pool: usdc(m.pool.draw!) } : {}),
          },
        }, `trade ${text} ${o}`);
      }

      // Resolve the yes/no market to yes: winners get stake + floor(D * shares / H), dust is the rest.
      const { T, fee, D } = distributed(yn.pool, 'yes');
      const winners = [...positions.values()].filter((x) => x.m === yn && x.o === 'yes');
      const paid = winners.map((x) => x.cost + (D * x.shares) / yn.held.yes!);
      const dust = D - winners.reduce((sum, x) => sum + (D * x.shares) / yn.held.yes!, 0n);
      const resolved = await ok(admin('POST', `/admin/markets/${yn.id}/resolve`, { outcome: 'yes' }));
      assert.deepEqual(resolved.settlement, {
        mode: 'resolved',
        outcome: 'yes',
        total: usdc(T),
        paid: usdc(paid.reduce((x, y) => x + y, 0n)),
        fee: usdc(fee),
        dust: usdc(dust),
        positions: [...positions.values()].filter((x) => x.m === yn).length,
        positions_paid: winners.length,
      });
      // sum of payouts + fee + dust = T (docs/pool-arithmetic.md, "The invariant the audit checks").
      assert.equal(paid.reduce((x, y) => x + y, 0n) + fee + dust, T);
      winners.forEach((x, i) => (balance[x.who] = balance[x.who]! + paid[i]!));

      // Cancel the threeway: every stake back as one refund per position, no fee.
      const cancelled = await ok(admin('POST', `/admin/markets/${tw.id}/cancel`));
      const twPositions = [...positions.values()].filter((x) => x.m === tw);
      assert.equal(cancelled.settlement.fee, 0);
      assert.equal(cancelled.settlement.paid, usdc(twPositions.reduce((sum, x) => sum + x.cost, 0n)));
      for (const x of twPositions) balance[x.who] = balance[x.who]! + x.cost;

      // Each wallet: its balance, and its ledger re-added to it entry by entry.
      for (const [who, p] of people.entries()) {
        const b = (await ok(call('GET', `/api/pool/balance/${p.wallet}`))).data;
        assert.equal(units(b.balance), balance[who], `balance of trader ${who}`);
        const ledger = (await ok(call('GET', `/api/pool/ledger/${p.wallet}?limit=100`))).data as { type: string; amount: number; market_id?: number }[];
        assert.equal(ledger.reduce((sum, e) => sum + units(e.amount), 0n), balance[who], `ledger of trader ${who}`);
        const mine = [...positions.values()].filter((x) => x.who === who);
        const settlements = ledger.filter((e) => e.type === 'settlement').map((e) => units(e.amount));
        assert.deepEqual(settlements.sort(), winners.flatMap((x, i) => (x.who === who ? [paid[i]!] : [])).sort(), `settlements of trader ${who}`);
        const refunds = ledger.filter((e) => e.type === 'refund').map((e) => units(e.amount));
        assert.deepEqual(refunds.sort(), mine.filter((x) => x.m === tw).map((x) => x.cost).sort(), `refunds of trader ${who}`);
        assert.deepEqual((await ok(call('GET', `/api/portfolio/${p.wallet}`))).data, [], 'settled markets leave the portfolio');
      }
    });
  });
  describe('the dashboard: a person watching usage', () => {
    it('names a malformed usage date in words, the same for the page and the CSV, whatever is wrong with it', async () => {
      const browser = await dashboardSession(base());
      assert.equal((await browser.call('POST', '/sign-up', { email: `usage-${Date.now()}@example.com`, password: 'a long passphrase' })).status, 201);
      await browser.refresh();
      for (const [query, field] of [
        ['from=2026-1-5', 'from'],
        ['from=yesterday', 'from'],
        ['from=2026-11-28T00:00:00Z', 'from'],
        ['to=28.11.2026', 'to'],
        ['to=2026-02-30', 'to'],
        ['from=', 'from'],
      ] as const) {
        const expected = { error: `${field}: not a date; expected YYYY-MM-DD (UTC)` };
        const page = await browser.call('GET', `/usage?${query}`);
        assert.deepEqual([page.status, page.json], [400, expected], query);
        const csv = await browser.call('GET', `/usage.csv?${query}`);
        assert.deepEqual([csv.status, csv.json], [400, expected], `csv ${query}`);
      }
      // Well-formed days still answer, a single day included.
      const day = new Date().toISOString().slice(0, 10);
      const one = await browser.call('GET', `/usage?from=${day}&to=${day}`);
      assert.equal(one.status, 200);
      assert.deepEqual([one.json.from, one.json.to], [day, day]);
    });
  });

  describe('the dashboard: a person following an emailed link', () => {
    it('answers a mangled link (cut short, punctuation after it) as docs/dashboard.md words an invalid link, not with the schema\'s pattern', async () => {
      const browser = await dashboardSession(base());
      const invalid = { error: 'this link is invalid, expired or already used' };
      // What mail clients and people do to a link: cut it, keep the sentence's full stop or bracket, encode it.
      for (const token of ['abc', 'Zm9vYmFyYmF6cXV4cXV1eA.', 'Zm9vYmFyYmF6cXV4cXV1eA)', 'Zm9vYmFy%2BYmF6', 'Zm9v YmFy YmF6', '']) {
        const verify = await browser.call('POST', '/verify-email', { token });
        assert.deepEqual([verify.status, verify.json], [400, invalid], `verify ${JSON.stringify(token)}`);
        const reset = await browser.call('POST', '/password-reset/confirm', { token, password: 'another long passphrase' });
        assert.deepEqual([reset.status, reset.json], [400, invalid], `reset ${JSON.stringify(token)}`);
      }
    });
  });

  describe('the dashboard: a person issuing keys', () => {
    it('holds at most 50 live svk_ keys per account, racing requests included; revoking makes room; the operator is not limited', async () => {
      const browser = await dashboardSession(base());
      const signUp = await browser.call('POST', '/sign-up', { email: `keys-${Date.now()}@example.com`, password: 'a long passphrase' });
      assert.equal(signUp.status, 201, JSON.stringify(signUp.json));
      await browser.refresh();
      const create = (name: string) => browser.call('POST', '/keys', { name });
      for (let i = 0; i < 46; i++) assert.equal((await create(`key ${i}`)).status, 201);
      // Eight at once from 46: exactly four fit.
      const racing = await Promise.all(Array.from({ length: 8 }, (_, i) => create(`racing ${i}`)));
      assert.deepEqual(racing.map((r) => r.status).sort(), [201, 201, 201, 201, 400, 400, 400, 400]);
      const full = { status: 400, json: { error: 'keys: at most 50 live keys per account; revoke one first' } };
      const refused = await create('one more');
      assert.deepEqual({ status: refused.status, json: refused.json }, full);
      for (const r of racing.filter((x) => x.status === 400)) assert.deepEqual(r.json, full.json);
      const keys = (await browser.call('GET', '/keys')).json.keys as { id: number; revoked_at: string | null }[];
      assert.equal(keys.filter((k) => k.revoked_at === null).length, 50);
      // Revoking one makes room for one.
      assert.equal((await browser.call('DELETE', `/keys/${keys[0]!.id}`)).status, 200);
      assert.equal((await create('after a revocation')).status, 201);
      assert.equal((await create('and no more')).status, 400);
      // The operator's console and admin API still issue keys to the account.
      const id = signUp.json.id as number;
      const byOperator = await fetch(`${base()}/admin/accounts/${id}/keys`, {
        method: 'POST',
        headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'from the operator' }),
      });
      assert.equal(byOperator.status, 201);
    });
  });
});
