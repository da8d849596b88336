import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { TEST_ADMIN_TOKEN } from './helpers/app.ts';
import { marketAuditSuite, type SocketAnswer } from './helpers/market-socket.ts';

/**
 * The seventh audit of the market API against market-api.md (docs/api-decisions.md, "Market API:
 * seventh audit"), over a real socket, as a trader, a bot and an operator meet it.
 */
describe('market API against market-api.md (seventh audit, over HTTP)', () => {
  const { base, call, admin, ok, send, trader, market } = marketAuditSuite();

  /** A request declaring a JSON body and sending none (Python requests with a json content-type header and no data, curl -H). */
  async function emptyJson(method: string, path: string, headers: Record<string, string> = {}): Promise<SocketAnswer> {
    const res = await fetch(base() + path, { method, headers: { 'content-type': 'application/json', 'content-length': '0', ...headers }, body: '' });
    return { status: res.status, body: await res.json() };
  }
  const adminToken = { authorization: `Bearer ${TEST_ADMIN_TOKEN}` };

  it('gives every event a slug that GET /api/events/:slugOrId serves: none of digits only, none named like the featured route', async () => {
    const first = await ok(admin('POST', '/admin/events', { title: 'First of all', category: 'politics' }), 201);
    const created = [];
    for (const title of ['Featured', String(first.id), '2028', '  42  ', 'FEATURED!']) {
      created.push(await ok(admin('POST', '/admin/events', { title, category: 'politics' }), 201));
    }
    for (const event of created) {
      const r = await call('GET', `/api/events/${event.slug}`);
      assert.equal(r.status, 200, event.slug);
      assert.equal(r.body.data.id, event.id, `${event.title} -> ${event.slug}`);
      assert.doesNotMatch(event.slug, /^[0-9]+$/);
      assert.notEqual(event.slug, 'featured');
    }
    // Two events of the same digits get the usual numbered slugs, still not digits only.
    const again = await ok(admin('POST', '/admin/events', { title: '2028', category: 'politics' }), 201);
    assert.equal((await call('GET', `/api/events/${again.slug}`)).body.data.id, again.id);
    // The routes keep their meaning: the featured event (none yet), an id.
    assert.deepEqual((await call('GET', '/api/events/featured')).body, { success: true, data: null });
    assert.equal((await call('GET', `/api/events/${first.id}`)).body.data.title, 'First of all');
    // Titles that are not at risk keep their plain slug.
    assert.equal(created.length, 5);
    assert.equal((await ok(admin('POST', '/admin/events', { title: 'Featured races 2028', category: 'politics' }), 201)).slug, 'featured-races-2028');
  });

  it('reads an empty body declared as JSON as no body on the calls that take none (the operator\'s activate, feature, cancel, api-keys; DELETE /api/keys)', async () => {
    const pending = await market('audit7-empty', { status: 'pending' });
    const activated = await emptyJson('POST', `/admin/markets/${pending.id}/activate`, adminToken);
    assert.deepEqual([activated.status, activated.body.status], [200, 'active'], JSON.stringify(activated.body));
    const featured = await emptyJson('POST', `/admin/markets/${pending.id}/feature`, adminToken);
    assert.deepEqual([featured.status, featured.body.featured], [200, true], JSON.stringify(featured.body));
    const event = await ok(admin('POST', '/admin/events', { title: 'Audit seven', category: 'politics' }), 201);
    assert.equal((await emptyJson('POST', `/admin/events/${event.id}/feature`, adminToken)).body.featured, true);
    const w = await trader('3');
    const keys = await emptyJson('POST', `/admin/wallets/${w.wallet}/api-keys`, adminToken);
    assert.equal(keys.status, 201, JSON.stringify(keys.body));
    assert.match(keys.body.api_key, /^mk_/);
    const trade = await send(w.viaKey, { method: 'POST', url: '/api/pool/trade', body: { wallet_addr: w.wallet, market_id: pending.id, side: 'yes', amount: 2 } });
    assert.equal(trade.status, 200, JSON.stringify(trade.body));
    const cancelled = await emptyJson('POST', `/admin/markets/${pending.id}/cancel`, adminToken);
    assert.deepEqual([cancelled.status, cancelled.body.status, cancelled.body.settlement.paid], [200, 'cancelled', 2], JSON.stringify(cancelled.body));
    assert.equal((await call('GET', `/api/pool/balance/${w.wallet}`)).body.data.balance, 3);
    // A signed call without a body, signed over the empty body.
    const revoked = await send(w.viaWallet, { method: 'DELETE', url: `/api/keys/${keys.body.api_key}`, body: '' });
    assert.deepEqual(revoked, { status: 200, body: { success: true, data: { api_key: keys.body.api_key, revoked: true } } });
    // A call that takes a body still calls an empty one malformed.
    const other = await market('audit7-empty');
    assert.deepEqual(await emptyJson('POST', `/admin/markets/${other.id}/resolve`, adminToken), { status: 400, body: { error: 'malformed JSON body' } });
    assert.deepEqual(await emptyJson('POST', '/api/pool/estimate'), { status: 400, body: { success: false, error: 'malformed JSON body' } });
    // The inference API reads its bodies itself (no body schema): an empty one stays malformed JSON there.
    const account = await ok(admin('POST', '/admin/accounts', { email: `audit7-${Date.now()}@example.com`, email_verified: true }), 201);
    const svk = (await ok(admin('POST', `/admin/accounts/${account.id}/keys`, {}), 201)).key;
    const inference = await fetch(`${base()}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${svk}` }, body: '' });
    assert.deepEqual([inference.status, await inference.json()], [400, { error: 'malformed JSON body' }]);
    // A body where none is taken is still read, and refused when it is not JSON.
    const junk = await fetch(`${base()}/admin/markets/${other.id}/feature`, { method: 'POST', headers: { 'content-type': 'application/json', ...adminToken }, body: '{' });
    assert.equal(junk.status, 400);
  });

  it('answers a list category no market can have (empty, blank, punctuation) 400 naming it, like status=, instead of an always empty page', async () => {
    const m = await market('audit7 cat');
    for (const asked of ['', '%20%20', 'crypto!', 'a'.repeat(41), '-x']) {
      assert.deepEqual(
        await call('GET', `/api/markets?category=${asked}`),
        { status: 400, body: { success: false, error: 'Invalid category: must be 1 to 40 letters, digits, spaces, hyphens or underscores' } },
        asked,
      );
    }
    // Every category an operator can file under still filters, in any case and spacing.
    for (const asked of ['audit7%20cat', '%20AUDIT7%20%20Cat%20']) {
      const r = await call('GET', `/api/markets?category=${asked}`);
      assert.deepEqual([r.status, r.body.total, r.body.data[0]?.id], [200, 1, m.id], asked);
    }
    assert.deepEqual((await call('GET', '/api/markets?category=nothing-here')).body.total, 0);
  });

  it('refuses an event ending in the past as it refuses such a market: 400 invalid end_date, nothing created', async () => {
    const title = `Audit7 past ${Math.random()}`;
    for (const end_date of [new Date(Date.now() - 86_400_000).toISOString(), '2020-01-01T00:00:00Z']) {
      assert.deepEqual(await admin('POST', '/admin/events', { title, category: 'audit7', end_date }), { status: 400, body: { error: 'invalid end_date: must be in the future' } });
      assert.deepEqual(await admin('POST', '/admin/markets', { title, category: 'audit7', market_type: 'yesno', end_date }), { status: 400, body: { error: 'invalid end_date: must be in the future' } });
    }
    assert.equal((await call('GET', `/api/search?q=${encodeURIComponent(title)}`)).body.data.events.length, 0);
    // An end ahead, or none (an event may stay open), is taken as before.
    const ahead = await ok(admin('POST', '/admin/events', { title, category: 'audit7', end_date: new Date(Date.now() + 86_400_000).toISOString() }), 201);
    assert.equal(typeof ahead.id, 'number');
    assert.equal((await ok(admin('POST', '/admin/events', { title: `${title} open`, category: 'audit7' }), 201)).end_date, null);
  });

  it('reaches every ledger entry and withdrawal of a wallet, past the newest 100, with before=<id>', async () => {
    const w = await trader('1');
    for (let i = 0; i < 104; i++) await ok(admin('POST', `/admin/wallets/${w.wallet}/deposit`, { amount: '0.5' }));
    for (let i = 0; i < 3; i++) await ok(send(w.viaKey, { method: 'POST', url: '/api/pool/withdraw', body: { wallet_addr: w.wallet, amount: 1 } }));
    const ledger = `/api/pool/ledger/${w.wallet}`;
    const seen: { id: number; amount: number }[] = [];
    let before: number | undefined;
    for (;;) {
      const r = await ok(call('GET', `${ledger}?limit=100${before === undefined ? '' : `&before=${before}`}`));
      assert.equal(r.count, r.data.length);
      if (r.data.length === 0) break;
      seen.push(...r.data);
      before = r.data.at(-1).id;
    }
    // Every entry once, newest first, summing to the balance (105 deposits; the withdrawals are only locked).
    assert.equal(seen.length, 105);
    assert.deepEqual(seen.map((e) => e.id), [...seen.map((e) => e.id)].sort((a, b) => b - a));
    assert.equal(new Set(seen.map((e) => e.id)).size, 105);
    const units = seen.reduce((sum, e) => sum + Math.round(e.amount * 1e6), 0);
    assert.equal(units / 1e6, (await ok(call('GET', `/api/pool/balance/${w.wallet}`))).data.balance);
    // With a type, and an id that is no entry of this wallet.
    const older = await ok(call('GET', `${ledger}?type=deposit&limit=2&before=${seen[1]!.id}`));
    assert.deepEqual(older.data.map((e: { id: number }) => e.id), [seen[2]!.id, seen[3]!.id]);
    assert.deepEqual(await call('GET', `${ledger}?before=0`), { status: 400, body: { success: false, error: 'Invalid before: must be between 1 and 2147483647' } });
    // A wallet's withdrawals the same way.
    const all = await ok(call('GET', `/api/pool/withdrawals/${w.wallet}`));
    assert.equal(all.count, 3);
    const rest = await ok(call('GET', `/api/pool/withdrawals/${w.wallet}?limit=2`));
    const last = await ok(call('GET', `/api/pool/withdrawals/${w.wallet}?limit=2&before=${rest.data[1].id}`));
    assert.deepEqual([...rest.data, ...last.data].map((x: { id: number }) => x.id), all.data.map((x: { id: number }) => x.id));
  });

  it('tells a signed depositor that the operator credits deposits (CHAIN=none) whatever the body, not which field to add first', async () => {
    const w = await trader('2');
    for (const body of [{ wallet_addr: w.wallet, amount: 10 }, { wallet_addr: w.wallet }, { wallet_addr: w.wallet, amount: 10, tx_hash: `0x${'ab'.repeat(32)}` }]) {
      const r = await send(w.viaKey, { method: 'POST', url: '/api/pool/deposit', body });
      assert.deepEqual(r, { status: 400, body: { success: false, error: 'Deposits are credited by the operator' } }, JSON.stringify(body));
    }
    // Authentication still comes first: no signature 401, another wallet 403.
    assert.equal((await call('POST', '/api/pool/deposit', { wallet_addr: w.wallet, amount: 10 })).status, 401);
    const other = await trader('1');
    assert.equal((await send(w.viaKey, { method: 'POST', url: '/api/pool/deposit', body: { wallet_addr: other.wallet, amount: 10 } })).status, 403);
    assert.equal((await call('GET', `/api/pool/balance/${w.wallet}`)).body.data.balance, 2);
  });
});

describe('market API, seventh audit: what the code cites', () => {
  function files(dir: string): string[] {
    return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : []));
  }

  it('cites only docs/ files that exist (the estimate and the stream were cited from pages that never did)', () => {
    const missing: string[] = [];
    for (const file of files('src')) {
      for (const [cited] of readFileSync(file, 'utf8').matchAll(/docs\/[A-Za-z0-9_.-]+\.md/g)) {
        if (!existsSync(cited)) missing.push(`${file}: ${cited}`);
      }
    }
    assert.deepEqual(missing, []);
  });

  it('writes down the decisions the spec leaves open that the market answers carry: the estimate, the draw side of a trade', () => {
    const decisions = readFileSync('docs/api-decisions.md', 'utf8');
    for (const word of ['POST /api/pool/estimate', 'payout_if_win', 'profit_if_win', 'draw_pool', 'new_draw_price']) {
      assert.ok(decisions.includes(word), word);
    }
  });
});
