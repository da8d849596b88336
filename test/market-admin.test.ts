import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { placeTrade } from '../src/market/trading/place-trade.ts';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { addr, assertBooksBalanced, USDC } from './helpers/market.ts';

describe('market admin API', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());
  afterEach(async () => {
    await assertBooksBalanced(t.deps.db);
  });

  const call = (method: 'GET' | 'POST' | 'PATCH', url: string, payload?: unknown) =>
    t.app.inject({ method, url: `/admin${url}`, headers: t.admin, ...(payload === undefined ? {} : { payload: payload as object }) });
  const future = (days = 30) => new Date(Date.now() + days * 86_400_000).toISOString();
  const expectError = async (res: Promise<{ statusCode: number; json(): unknown }>, status: number, match: RegExp | string) => {
    const r = await res;
    assert.equal(r.statusCode, status, JSON.stringify(r.json()));
    const body = r.json() as { error: string };
    assert.deepEqual(Object.keys(body), ['error']);
    if (typeof match === 'string') assert.equal(body.error, match);
    else assert.match(body.error, match);
  };
  const market = async (over: Record<string, unknown> = {}) => {
    const r = await call('POST', '/markets', { title: 'A market', category: 'crypto', market_type: 'yesno', end_date: future(), ...over });
    assert.equal(r.statusCode, 201, r.body);
    return r.json();
  };

  it('needs the admin token', async () => {
    const r = await t.app.inject({ method: 'POST', url: '/admin/events', payload: { title: 'x', category: 'y' } });
    assert.equal(r.statusCode, 401);
  });

  it('creates events with unique slugs and features one at a time', async () => {
    const body = { title: 'US Election 2028', description: 'Who wins', category: 'Politics', end_date: future(400), image_url: '/img/us.png' };
    const a = await call('POST', '/events', body);
    assert.equal(a.statusCode, 201);
    const ev = a.json();
    assert.equal(typeof ev.id, 'number');
    assert.equal(ev.slug, 'us-election-2028');
    assert.equal(ev.category, 'politics');
    assert.equal(ev.status, 'active');
    assert.equal(ev.featured, false);
    const b = (await call('POST', '/events', body)).json();
    assert.equal(b.slug, 'us-election-2028-2');

    const f1 = await call('POST', `/events/${ev.id}/feature`);
    assert.equal(f1.statusCode, 200);
    assert.equal(f1.json().featured, true);
    await call('POST', `/events/${b.id}/feature`);
    const featured = await t.deps.db.selectFrom('events').select('id').where('featured_at', 'is not', null).execute();
    assert.deepEqual(featured, [{ id: b.id }]);

    await expectError(call('POST', '/events/999999/feature'), 404, 'Event not found');
    await expectError(call('POST', '/events/abc/feature'), 400, /id/);
    await expectError(call('POST', '/events', { category: 'x' }), 400, 'missing required field: title');
    await expectError(call('POST', '/events', { title: '   ', category: 'x' }), 400, 'invalid title: must not be empty');
    await expectError(call('POST', '/events', { title: 'x', category: 'x', end_date: 'tomorrow' }), 400, /^invalid end_date/);
    await expectError(call('POST', '/events', { title: 'x', category: 'x', colour: 'red' }), 400, 'unknown field: colour');
    await expectError(call('POST', '/events', { title: 'x', category: '!!' }), 400, /^invalid category/);
  });

  it('creates markets of every type and refuses bad input naming the field', async () => {
    const yesno = await market({ title: 'Will BTC hit $150k?', opening_prices: { yes: 0.25, no: 0.75 }, seed_liquidity: 200 });
    assert.equal(yesno.slug, 'will-btc-hit-150k');
    assert.equal(yesno.status, 'active');
    assert.deepEqual(yesno.prices, { yes: 0.25, no: 0.75 });
    assert.deepEqual(yesno.seeds, { yes: 50, no: 150 });
    assert.deepEqual(yesno.outcome_labels, { yes: 'Yes', no: 'No' });
    const updown = await market({ market_type: 'updown', status: 'pending' });
    assert.deepEqual(updown.outcome_labels, { yes: 'Up', no: 'Down' });
    assert.equal(updown.status, 'pending');
    const three = await market({ market_type: 'threeway', outcome_labels: { yes: 'Home', no: 'Away', draw: 'Draw' } });
    assert.deepEqual(Object.keys(three.prices), ['yes', 'no', 'draw']);
    const custom = await market({ market_type: 'custom', outcome_labels: { yes: 'Alice', no: 'Bob' } });
    assert.deepEqual(custom.outcome_labels, { yes: 'Alice', no: 'Bob' });
    const ev = (await call('POST', '/events', { title: 'Grouped', category: 'sports' })).json();
    const inEvent = await call('POST', '/markets', { title: 'In event', market_type: 'yesno', end_date: future(), event_id: ev.id });
    assert.equal(inEvent.statusCode, 201);
    assert.equal(inEvent.json().category, 'sports');
    assert.equal(inEvent.json().event_id, ev.id);

    const base = { title: 'Bad', category: 'crypto', market_type: 'yesno', end_date: future() };
    await expectError(call('POST', '/markets', { ...base, market_type: 'poll' }), 400, /^invalid market_type: must be one of yesno, threeway, updown, custom/);
    await expectError(call('POST', '/markets', { ...base, end_date: new Date(Date.now() - 1000).toISOString() }), 400, 'invalid end_date: must be in the future');
    await expectError(call('POST', '/markets', { ...base, status: 'resolved' }), 400, /^invalid status/);
    await expectError(call('POST', '/markets', { ...base, opening_prices: { yes: 0.5, no: 0.6 } }), 400, /^opening_prices must sum to 1/);
    await expectError(call('POST', '/markets', { ...base, opening_prices: { yes: 0.5, no: 0.3, draw: 0.2 } }), 400, /opening_prices\.draw/);
    await expectError(call('POST', '/markets', { ...base, seed_liquidity: '1.0000001' }), 400, 'seed_liquidity must have at most 6 decimals');
    await expectError(call('POST', '/markets', { ...base, seed_liquidity: true }), 400, /seed_liquidity/);
    await expectError(call('POST', '/markets', { ...base, market_type: 'custom' }), 400, /^missing required field: outcome_labels/);
    await expectError(call('POST', '/markets', { ...base, outcome_labels: { yes: 'Y', no: 'N', draw: 'D' } }), 400, /^invalid outcome_labels: draw/);
    await expectError(call('POST', '/markets', { ...base, event_id: 999999 }), 400, 'invalid event_id: no event 999999');
    await expectError(call('POST', '/markets', { ...base, event_id: 99999999999 }), 400, /event_id/);
    await expectError(call('POST', '/markets', { title: 'No category', market_type: 'yesno', end_date: future() }), 400, 'missing required field: category');
    await expectError(call('POST', '/markets', { ...base, image_url: 'javascript:alert(1)' }), 400, /^invalid image_url/);
  });

  it('runs the lifecycle: edit, activate, feature, trade, resolve, cancel', async () => {
    const pending = await market({ title: 'Lifecycle', status: 'pending' });
    const edited = await call('PATCH', `/markets/${pending.id}`, { title: 'Lifecycle, edited', description: 'new words', outcome_labels: { yes: 'Sure', no: 'Nope' } });
    assert.equal(edited.statusCode, 200);
    assert.equal(edited.json().title, 'Lifecycle, edited');
    assert.equal(edited.json().slug, pending.slug);
    assert.deepEqual(edited.json().outcome_labels, { yes: 'Sure', no: 'Nope' });
    await expectError(call('PATCH', `/markets/${pending.id}`, {}), 400, /^nothing to change/);
    await expectError(call('PATCH', `/markets/${pending.id}`, { status: 'active' }), 400, 'unknown field: status');
    await expectError(call('PATCH', '/markets/999999', { title: 'x' }), 404, 'Market not found');

    const active = await call('POST', `/markets/${pending.id}/activate`);
    assert.equal(active.json().status, 'active');
    await expectError(call('POST', `/markets/${pending.id}/activate`), 400, 'Market already active');
    await expectError(call('POST', '/markets/999999/activate'), 404, 'Market not found');

    const other = await market({ title: 'Other featured' });
    assert.equal((await call('POST', `/markets/${other.id}/feature`)).json().featured, true);
    assert.equal((await call('POST', `/markets/${pending.id}/feature`)).json().featured, true);
    const featured = await t.deps.db.selectFrom('markets').select('id').where('featured_at', 'is not', null).execute();
    assert.deepEqual(featured, [{ id: pending.id }]);

    const alice = addr(0xa11ce);
    const bob = addr(0xb0b);
    const dep = await call('POST', `/wallets/${alice.toUpperCase().replace('0X', '0x')}/deposit`, { amount: 100.5, note: 'welcome' });
    assert.equal(dep.statusCode, 200);
    assert.deepEqual(dep.json(), {
      wallet_addr: alice,
      balance: 100.5,
      locked: 0,
      total_deposited: 100.5,
      total_withdrawn: 0,
      available: 100.5,
      max_withdraw: 100.5,
      on_chain_available: null,
    });
    assert.equal((await call('POST', `/wallets/${bob}/deposit`, { amount: '50.000001' })).json().balance, 50.000001);
    await expectError(call('POST', `/wallets/0x123/deposit`, { amount: 1 }), 400, 'invalid wallet: must be 0x followed by 40 hex digits');
    await expectError(call('POST', `/wallets/${bob}/deposit`, { amount: 1.1234567 }), 400, 'amount must have at most 6 decimals');
    await expectError(call('POST', `/wallets/${bob}/deposit`, { amount: 0 }), 400, 'amount must be greater than 0');
    await expectError(call('POST', `/wallets/${bob}/deposit`, { amount: -5 }), 400, 'amount must be greater than 0');
    await expectError(call('POST', `/wallets/${bob}/deposit`, {}), 400, 'missing required field: amount');

    const { db, clock } = t.deps;
    await placeTrade(db, clock, { wallet: alice, marketId: pending.id, side: 'yes', amount: 10n * USDC });
    await placeTrade(db, clock, { wallet: bob, marketId: pending.id, side: 'no', amount: 30n * USDC });

    await expectError(call('POST', `/markets/${pending.id}/resolve`, { outcome: 'draw' }), 400, 'invalid outcome: must be one of yes, no');
    await expectError(call('POST', `/markets/${pending.id}/resolve`, {}), 400, 'missing required field: outcome');
    const resolved = await call('POST', `/markets/${pending.id}/resolve`, { outcome: 'yes' });
    assert.equal(resolved.statusCode, 200);
    const r = resolved.json();
    assert.equal(r.status, 'resolved');
    assert.equal(r.resolved_outcome, 'yes');
    assert.equal(r.escrow, 0);
    // The only winner: 10 + (30 - 1.5) = 38.5; fee 1.5.
    assert.deepEqual(r.settlement, { mode: 'resolved', outcome: 'yes', total: 40, paid: 38.5, fee: 1.5, dust: 0, positions: 2, positions_paid: 1 });
    await expectError(call('POST', `/markets/${pending.id}/resolve`, { outcome: 'no' }), 400, 'Market already resolved');
    await expectError(call('POST', `/markets/${pending.id}/cancel`), 400, 'Market already resolved');
    await expectError(call('PATCH', `/markets/${pending.id}`, { title: 'late' }), 400, 'Market already resolved');
    await expectError(call('POST', `/markets/${pending.id}/feature`), 400, 'Market already resolved');

    await placeTrade(db, clock, { wallet: alice, marketId: other.id, side: 'no', amount: 5n * USDC });
    const cancelled = await call('POST', `/markets/${other.id}/cancel`);
    assert.equal(cancelled.statusCode, 200);
    assert.equal(cancelled.json().status, 'cancelled');
    assert.deepEqual(cancelled.json().settlement, { mode: 'cancelled', outcome: null, total: 5, paid: 5, fee: 0, dust: 0, positions: 1, positions_paid: 1 });
    await expectError(call('POST', `/markets/${other.id}/cancel`), 400, 'Market already cancelled');
    await expectError(call('POST', '/markets/999999/resolve', { outcome: 'yes' }), 404, 'Market not found');
    await expectError(call('POST', '/markets/0/cancel'), 400, /^invalid id/);

    const audit = await call('GET', '/audit');
    assert.equal(audit.statusCode, 200);
    const books = audit.json();
    assert.equal(books.balanced, true, books.problems.join('\n'));
    assert.equal(books.totals.fees, 1.5);
    assert.equal(books.totals.deposits, 150.500001);
    assert.equal(books.totals.wallets + books.totals.escrow + books.totals.fees, books.totals.net_external);
  });

  // On PostgreSQL each feature call used to clear only the featured rows its own statement saw, so
  // picks racing each other could all commit featured (docs/api-decisions.md, "Market API: ninth audit").
  it('leaves exactly one market and one event featured when operators feature several at once', async () => {
    const markets = await Promise.all([1, 2, 3, 4, 5, 6].map((i) => market({ title: `Racing pick ${i}` })));
    const events = await Promise.all([1, 2, 3, 4, 5, 6].map(async (i) => (await call('POST', '/events', { title: `Racing event ${i}`, category: 'sports' })).json()));
    for (let round = 0; round < 3; round++) {
      const answers = await Promise.all([
        ...markets.map((m) => call('POST', `/markets/${m.id}/feature`)),
        ...events.map((e) => call('POST', `/events/${e.id}/feature`)),
      ]);
      for (const r of answers) assert.equal(r.statusCode, 200, r.body);
      const featuredMarkets = await t.deps.db.selectFrom('markets').select('id').where('featured_at', 'is not', null).execute();
      const featuredEvents = await t.deps.db.selectFrom('events').select('id').where('featured_at', 'is not', null).execute();
      assert.equal(featuredMarkets.length, 1, `round ${round}: featured markets ${JSON.stringify(featuredMarkets)}`);
      assert.equal(featuredEvents.length, 1, `round ${round}: featured events ${JSON.stringify(featuredEvents)}`);
    }
  });

  it('shows its own writes to the very next read (lists, the market, events)', async () => {
    for (let round = 0; round < 5; round++) {
      const m = await market({ title: `Read your writes ${round}`, status: 'active' });
      // Warm the cached answers first, so a stale one would be served.
      const list = () => t.app.inject({ url: '/api/markets?limit=50&sort=newest' });
      assert.ok((await list()).json().data.some((x: { id: number }) => x.id === m.id));
      assert.equal((await t.app.inject({ url: `/api/markets/${m.id}` })).json().data.status, 'active');
      assert.equal((await call('POST', `/markets/${m.id}/feature`)).statusCode, 200);
      assert.equal((await t.app.inject({ url: `/api/markets/${m.id}` })).json().data.featured, true);
      assert.equal((await call('POST', `/markets/${m.id}/resolve`, { outcome: 'yes' })).statusCode, 200);
      const after = (await list()).json().data.find((x: { id: number }) => x.id === m.id);
      assert.equal(after?.status, 'resolved', `round ${round}: the list shows the resolution at once`);
      assert.equal((await t.app.inject({ url: `/api/markets/${m.id}` })).json().data.status, 'resolved');
    }
  });

  it('never answers a 500 to hostile input', async () => {
    const m = await market({ title: 'Target' });
    const nasty: unknown[] = [
      null, [], 'text', 42, {}, { title: 'a\u0000b', category: 'x' }, { title: 'x'.repeat(10_000), category: 'x' },
      { title: 'x', category: 'x', market_type: 'yesno', end_date: '+275760-09-13T00:00:00.000Z' },
      { title: 'x', category: 'x', market_type: 'yesno', end_date: '2026-02-30T00:00:00Z' },
      { title: 'x', category: 'x', market_type: 'threeway', end_date: future(), outcome_labels: { yes: 'a', no: 'b', draw: '\u0000' } },
      { title: 'x', category: 'x', market_type: 'yesno', end_date: future(), seed_liquidity: 1e300 },
      { title: 'x', category: 'x', market_type: 'yesno', end_date: future(), opening_prices: { yes: 1e-320, no: 1 } },
      { amount: '1e5' }, { amount: 1, note: 'x\u0000' }, { amount: Number.MAX_VALUE }, { outcome: ['yes'] }, { description: 'x\u0000' },
    ];
    const routes: ['POST' | 'PATCH', string][] = [
      ['POST', '/events'], ['POST', '/markets'], ['PATCH', `/markets/${m.id}`], ['POST', `/markets/${m.id}/resolve`],
      ['POST', `/wallets/${addr(0xbad)}/deposit`], ['POST', '/markets/2147483648/activate'], ['POST', '/events/-1/feature'],
    ];
    for (const [method, url] of routes) {
      for (const payload of nasty) {
        const r = await t.app.inject({ method, url: `/admin${url}`, headers: { ...t.admin, 'content-type': 'application/json' }, payload: JSON.stringify(payload) });
        assert.ok(r.statusCode < 500, `${method} ${url} ${JSON.stringify(payload)?.slice(0, 80)} -> ${r.statusCode} ${r.body}`);
        if (r.statusCode >= 400) assert.equal(typeof r.json().error, 'string');
      }
    }
    const nul = await call('POST', '/events', { title: 'a\u0000b', category: 'x' });
    assert.equal(nul.json().error, 'invalid title: must not contain NUL characters');
  });

  it('documents its routes in the OpenAPI document under the admin tag', async () => {
    const doc = (await t.app.inject('/openapi.json')).json();
    assert.deepEqual(doc.paths['/admin/markets/{id}/resolve'].post.tags, ['admin']);
    assert.ok(doc.paths['/admin/wallets/{wallet}/deposit']);
  });
});
