import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DatabaseNotEmptyError, seedDemo, type SeedDemoSummary } from '../src/market/demo/seed-demo.ts';
import type { DatabaseHandle } from '../src/storage/database.ts';
import { assertBooksBalanced, marketDatabase } from './helpers/market.ts';

const NOW = Date.parse('2026-11-20T12:00:00Z');

describe('seed:demo', () => {
  let a: DatabaseHandle;
  let b: DatabaseHandle;
  let summary: SeedDemoSummary;
  before(async () => {
    a = await marketDatabase();
    b = await marketDatabase();
    summary = await seedDemo(a.db, { seed: 7, now: NOW, trades: 250, wallets: 20 });
  });
  after(async () => {
    await a.close();
    await b.close();
  });

  it('fills every kind of market through the real code paths, books balanced', async () => {
    assert.equal(summary.books.balanced, true, summary.books.problems.join('\n'));
    await assertBooksBalanced(a.db);
    assert.deepEqual([summary.resolved, summary.cancelled, summary.pending, summary.wallets], [5, 2, 1, 20]);
    assert.ok(summary.trades > 150, `${summary.trades} trades`);
    const types = await a.db.selectFrom('markets').select('market_type').distinct().orderBy('market_type').execute();
    assert.deepEqual(types.map((t) => t.market_type), ['custom', 'threeway', 'updown', 'yesno']);
    const categories = await a.db.selectFrom('markets').select('category').distinct().execute();
    assert.ok(categories.length >= 5);
    const featured = await a.db.selectFrom('markets').select('id').where('featured_at', 'is not', null).execute();
    assert.equal(featured.length, 1);
    const featuredEvents = await a.db.selectFrom('events').select('id').where('featured_at', 'is not', null).execute();
    assert.equal(featuredEvents.length, 1);
    const resolvedEvents = await a.db.selectFrom('events').select('title').where('status', '=', 'resolved').execute();
    assert.deepEqual(resolvedEvents.map((e) => e.title), ['North London Derby, November 2026']);
  });

  it('back-dates a month of trades up to now, with trades in the last hour and day', async () => {
    const trades = await a.db.selectFrom('trades').select('created_at').orderBy('created_at').execute();
    const first = trades[0]!.created_at.getTime();
    const last = trades.at(-1)!.created_at.getTime();
    assert.ok(NOW - first > 25 * 86_400_000 && NOW - first <= 31 * 86_400_000);
    assert.ok(last <= NOW);
    assert.ok(trades.some((t) => NOW - t.created_at.getTime() < 3_600_000), 'a trade in the last hour');
    assert.ok(trades.filter((t) => NOW - t.created_at.getTime() < 86_400_000).length > 10, 'trades in the last day');
    const ledger = await a.db.selectFrom('ledger_entries').select('created_at').orderBy('created_at', 'desc').limit(1).executeTakeFirstOrThrow();
    assert.ok(ledger.created_at.getTime() <= NOW);
  });

  it('refuses to run on a database that is not empty', async () => {
    await assert.rejects(seedDemo(a.db, { seed: 7, now: NOW, trades: 10 }), DatabaseNotEmptyError);
  });

  it('is reproducible for a seed', async () => {
    await seedDemo(b.db, { seed: 7, now: NOW, trades: 250, wallets: 20 });
    const rows = (db: DatabaseHandle['db']) =>
      db.selectFrom('trades').select(['market_id', 'wallet', 'outcome', 'amount', 'shares', 'created_at']).orderBy('id').execute();
    assert.deepEqual(await rows(b.db), await rows(a.db));
  });
});
