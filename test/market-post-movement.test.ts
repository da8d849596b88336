import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { LedgerError } from '../src/market/ledger/check-movement.ts';
import { escrowAccount, EXTERNAL_ACCOUNT, walletAccount } from '../src/market/ledger/ledger.accounts.ts';
import { movementSql, postMovement } from '../src/market/ledger/post-movement.ts';
import { createMarket } from '../src/market/markets/markets.admin.ts';
import { depositToWallet } from '../src/market/wallets/deposit.ts';
import type { DatabaseHandle } from '../src/storage/database.ts';
import { addr, assertBooksBalanced, manualClock, marketDatabase, USDC } from './helpers/market.ts';

describe('postMovement: one statement per movement', () => {
  let h: DatabaseHandle;
  const clock = manualClock();
  before(async () => {
    h = await marketDatabase();
  });
  after(() => h.close());

  const wallet = (a: string) => h.db.selectFrom('wallets').selectAll().where('address', '=', a).executeTakeFirstOrThrow();

  it('writes the entries and every balance column, adding up entries on one account', async () => {
    const a = addr(0x51);
    const b = addr(0x52);
    await depositToWallet(h.db, clock, { wallet: a, amount: 10n * USDC });
    await depositToWallet(h.db, clock, { wallet: b, amount: 1n * USDC });
    const posted = await h.db.transaction().execute((trx) =>
      postMovement(trx, {
        type: 'deposit',
        entries: [
          { account: EXTERNAL_ACCOUNT, amount: -7n * USDC },
          { account: walletAccount(a), amount: 3n * USDC },
          { account: walletAccount(b), amount: 2n * USDC },
          { account: walletAccount(a), amount: 2n * USDC },
        ],
        note: 'split',
      }),
    );
    assert.equal(posted.entry_ids.length, 4);
    assert.deepEqual([...posted.entry_ids].sort((x, y) => x - y), posted.entry_ids, 'ids in entry order');
    const rows = await h.db.selectFrom('ledger_entries').select(['account', 'amount']).where('movement_id', '=', posted.movement_id).orderBy('id').execute();
    assert.deepEqual(rows.map((r) => [r.account, r.amount]), [
      [EXTERNAL_ACCOUNT, -7n * USDC],
      [walletAccount(a), 3n * USDC],
      [walletAccount(b), 2n * USDC],
      [walletAccount(a), 2n * USDC],
    ]);
    const wa = await wallet(a);
    assert.equal(wa.balance, 15n * USDC);
    assert.equal(wa.total_deposited, 15n * USDC);
    assert.equal((await wallet(b)).balance, 3n * USDC);
    await assertBooksBalanced(h.db);
  });

  it('refuses a movement on a wallet or market that does not exist, writing nothing', async () => {
    const ghost = addr(0x53);
    const before = await h.db.selectFrom('ledger_entries').select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow();
    await assert.rejects(
      h.db.transaction().execute((trx) =>
        postMovement(trx, { type: 'deposit', entries: [{ account: EXTERNAL_ACCOUNT, amount: -USDC }, { account: walletAccount(ghost), amount: USDC }] }),
      ),
      (e: unknown) => e instanceof LedgerError && e.message === `no wallet ${ghost}`,
    );
    const a = addr(0x51);
    await assert.rejects(
      h.db.transaction().execute((trx) =>
        postMovement(trx, { type: 'trade', entries: [{ account: walletAccount(a), amount: -USDC }, { account: escrowAccount(987_654), amount: USDC }] }),
      ),
      (e: unknown) => e instanceof LedgerError && e.message === 'no market 987654',
    );
    const after = await h.db.selectFrom('ledger_entries').select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow();
    assert.equal(after.n, before.n);
    assert.equal((await wallet(a)).balance, 15n * USDC);
  });

  it('lets a caller change the escrow row in the same update, and refuses an escrowRow the movement lacks', async () => {
    const m = await createMarket(h.db, clock, { title: 'Escrow row', category: 'test', market_type: 'yesno', end_date: new Date(clock.now() + 86_400_000).toISOString() });
    const a = addr(0x51);
    const movement = movementSql(
      { type: 'trade', wallet: a, market_id: m.id, entries: [{ account: walletAccount(a), amount: -2n * USDC }, { account: escrowAccount(m.id), amount: 2n * USDC }] },
      { prefix: 'x_', escrowRow: { marketId: m.id, set: [sql`pool_yes = pool_yes + ${2n * USDC}`], returning: ['escrow', 'pool_yes'] } },
    );
    const row = await h.db.transaction().execute(async (trx) => {
      const r = await sql<{ escrow: bigint; pool_yes: bigint; updated: number[] }>`
        with ${sql.join(movement.ctes)} select e.escrow, e.pool_yes, ${movement.updated} as updated from ${sql.id(movement.escrowCte!)} e`.execute(trx);
      movement.check(r.rows[0]?.updated);
      // Keep the books whole for the audit: a trade also adds shares and a position.
      throw Object.assign(new Error('rollback'), { row: r.rows[0] });
    }).catch((e: { row?: unknown }) => e.row);
    assert.deepEqual(row, { escrow: 2n * USDC, pool_yes: 2n * USDC, updated: [1, 1] });
    assert.throws(
      () => movementSql({ type: 'deposit', entries: [{ account: EXTERNAL_ACCOUNT, amount: -USDC }, { account: walletAccount(a), amount: USDC }] }, { escrowRow: { marketId: m.id, set: [], returning: [] } }),
      LedgerError,
    );
    await assertBooksBalanced(h.db);
  });
});
