import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createAdminClient } from '../src/cli/admin/admin-client.ts';
import { buildAdminProgram } from '../src/cli/admin/program.ts';
import { placeTrade } from '../src/market/trading/place-trade.ts';
import { startTestApp, TEST_ADMIN_TOKEN, type TestApp } from './helpers/app.ts';
import { addr, assertBooksBalanced, USDC } from './helpers/market.ts';

describe('admin CLI: market commands', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
    await t.listen();
  });
  after(() => t.close());

  /** Runs one command line; returns what it printed. */
  async function run(...args: string[]): Promise<Record<string, unknown>> {
    const printed: unknown[] = [];
    const program = buildAdminProgram(() => createAdminClient(t.url, TEST_ADMIN_TOKEN), (v) => printed.push(v));
    await program.parseAsync(args, { from: 'user' });
    assert.equal(printed.length, 1);
    return printed[0] as Record<string, unknown>;
  }
  const future = new Date(Date.now() + 10 * 86_400_000).toISOString();

  it('drives the whole lifecycle', async () => {
    const ev = await run('event', 'create', '--title', 'Fed decisions', '--category', 'economy', '--end-date', future);
    assert.equal(ev.slug, 'fed-decisions');
    assert.equal((await run('event', 'feature', String(ev.id))).featured, true);

    const m = await run(
      'market', 'create', '--title', 'Rate cut in March?', '--type', 'custom', '--end-date', future, '--event', String(ev.id),
      '--pending', '--prices', 'yes=0.3,no=0.7', '--seed', '250', '--labels', 'yes=Cut,no=Hold',
    );
    assert.equal(m.status, 'pending');
    assert.equal(m.category, 'economy');
    assert.deepEqual(m.seeds, { yes: 75, no: 175 });
    assert.deepEqual((await run('market', 'edit', String(m.id), '--labels', 'yes=Cut,no=No cut')).outcome_labels, { yes: 'Cut', no: 'No cut' });
    assert.equal((await run('market', 'activate', String(m.id))).status, 'active');
    assert.equal((await run('market', 'feature', String(m.id))).featured, true);
    assert.equal((await run('market', 'unfeature', String(m.id))).featured, false);
    assert.equal((await run('event', 'unfeature', String(ev.id))).featured, false);
    assert.equal((await run('market', 'feature', String(m.id))).featured, true);

    const w = addr(0xc11);
    const balance = await run('wallet', 'deposit', w, '12.345678', '--note', 'cli');
    assert.equal(balance.balance, 12.345678);
    await placeTrade(t.deps.db, t.deps.clock, { wallet: w, marketId: m.id as number, side: 'no', amount: 2n * USDC });
    const resolved = await run('market', 'resolve', String(m.id), 'no');
    assert.equal(resolved.status, 'resolved');
    assert.equal((resolved.settlement as { paid: number }).paid, 2);

    const other = await run('market', 'create', '--title', 'To cancel', '--type', 'yesno', '--category', 'economy', '--end-date', future);
    assert.equal((await run('market', 'cancel', String(other.id))).status, 'cancelled');
    const key = await run('wallet', 'api-key', w);
    assert.match(String(key.api_key), /^mk_[0-9a-f]{32}$/);
    assert.match(String(key.api_secret), /^mks_/);
    assert.equal(key.wallet, w);
    const audit = await run('audit');
    assert.equal(audit.balanced, true);
    await assertBooksBalanced(t.deps.db);
  });

  it('reports API errors and bad arguments', async () => {
    await assert.rejects(run('market', 'resolve', '999999', 'yes'), /404: Market not found/);
    await assert.rejects(run('wallet', 'deposit', '0xnope', '1'), /400: invalid wallet/);
    await assert.rejects(run('wallet', 'api-key', '0xnope'), /400: invalid wallet/);
    await assert.rejects(run('market', 'activate', 'abc'), /expected a positive id/);
  });
});
