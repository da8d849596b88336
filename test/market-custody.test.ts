import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { createAdminClient } from '../src/cli/admin/admin-client.ts';
import { buildAdminProgram } from '../src/cli/admin/program.ts';
import { issueApiKey } from '../src/market/auth/api-key.repository.ts';
import { placeTrade } from '../src/market/trading/place-trade.ts';
import { HttpError } from '../src/shared/errors.ts';
import { startTestApp, TEST_ADMIN_TOKEN, type TestApp } from './helpers/app.ts';
import { admin, getJson, signedPost, type Signer } from './helpers/custody-client.ts';
import { addr, assertBooksBalanced, USDC } from './helpers/market.ts';

const WITHDRAW = '/api/pool/withdraw';
const DEPOSIT = '/api/pool/deposit';
const future = () => new Date(Date.now() + 10 * 86_400_000).toISOString();

type Json = Record<string, unknown>;
const dataOf = (r: { body: Json }) => r.body.data as Json;

describe('market custody over HTTP, CHAIN=none', () => {
  let t: TestApp;
  before(async () => {
    // The withdrawal minimum is left at its default (1 USDC); a high rate limit keeps the many requests below 429.
    t = await startTestApp({ env: { RATE_LIMIT_MARKET_PER_MINUTE: '100000' } });
  });
  after(() => t.close());
  afterEach(() => assertBooksBalanced(t.deps.db));

  const newWallet = () => {
    const account = privateKeyToAccount(generatePrivateKey());
    return { account, address: account.address.toLowerCase(), signer: { account } as Signer };
  };
  const deposit = async (wallet: string, amount: string) => {
    const r = await admin(t, 'POST', `/admin/wallets/${wallet}/deposit`, { amount, note: 'test funding' });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    return r.body;
  };
  const createMarket = async (title: string) => {
    const r = await admin(t, 'POST', '/admin/markets', { title, category: 'test', market_type: 'yesno', end_date: future() });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    return r.body.id as number;
  };
  const balance = async (wallet: string) => {
    const r = await getJson(t, `/api/pool/balance/${wallet}`);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.success, true);
    return dataOf(r);
  };
  const withdraw = (w: { address: string; signer: Signer }, amount: unknown, opts: { idempotencyKey?: string } = {}) =>
    signedPost(t, w.signer, WITHDRAW, { wallet_addr: w.address, amount }, opts);
  const errorOf = (res: { statusCode: number; json(): unknown }) => ({ status: res.statusCode, body: res.json() });

  it('answers every field of the balance record, and a zero record for a wallet never seen', async () => {
    const w = newWallet();
    await deposit(w.address, '125.5');
    assert.deepEqual(await balance(w.account.address), {
      wallet_addr: w.address,
      balance: 125.5,
      locked: 0,
      total_deposited: 125.5,
      total_withdrawn: 0,
      available: 125.5,
      max_withdraw: 125.5,
      on_chain_available: null,
    });
    const stranger = addr(0xdead01);
    assert.deepEqual(await balance(stranger), {
      wallet_addr: stranger,
      balance: 0,
      locked: 0,
      total_deposited: 0,
      total_withdrawn: 0,
      available: 0,
      max_withdraw: 0,
      on_chain_available: null,
    });
    for (const bad of ['0x123', 'nope', `0x${'g'.repeat(40)}`]) {
      const r = await getJson(t, `/api/pool/balance/${bad}`);
      assert.deepEqual(r, { status: 400, body: { success: false, error: 'Invalid wallet: must be 0x followed by 40 hex digits' } });
    }
  });

  it('lists the ledger newest first with signed amounts, the type filter, the limit and count', async () => {
    const w = newWallet();
    const loser = addr(0x10 + 1);
    await deposit(w.address, '50');
    await deposit(loser, '50');
    const m = await createMarket('Ledger market');
    const trade = await placeTrade(t.deps.db, t.deps.clock, { wallet: w.address, marketId: m, side: 'yes', amount: 10n * USDC });
    await placeTrade(t.deps.db, t.deps.clock, { wallet: loser, marketId: m, side: 'no', amount: 10n * USDC });
    assert.equal((await admin(t, 'POST', `/admin/markets/${m}/resolve`, { outcome: 'yes' })).status, 200);
    const c = await createMarket('Cancelled market');
    await placeTrade(t.deps.db, t.deps.clock, { wallet: w.address, marketId: c, side: 'no', amount: 2n * USDC });
    assert.equal((await admin(t, 'POST', `/admin/markets/${c}/cancel`)).status, 200);

    const all = await getJson(t, `/api/pool/ledger/${w.address.toUpperCase().replace('0X', '0x')}`);
    assert.equal(all.status, 200);
    assert.equal(all.body.success, true);
    const entries = all.body.data as Json[];
    assert.equal(all.body.count, entries.length);
    assert.deepEqual(
      entries.map((e) => [e.type, e.amount]),
      [
        ['refund', 2],
        ['trade', -2],
        ['settlement', (entries[2]!.amount as number)],
        ['trade', -10],
        ['deposit', 50],
      ],
    );
    assert.ok((entries[2]!.amount as number) > 10, 'the winner is paid more than its stake');
    const ids = entries.map((e) => e.id as number);
    assert.deepEqual([...ids].sort((a, b) => b - a), ids, 'newest first');
    const tradeEntry = entries[3]!;
    assert.equal(tradeEntry.note, `trade #${trade.trade_id} on market ${m}`);
    assert.equal(tradeEntry.trade_id, trade.trade_id);
    assert.equal(tradeEntry.market_id, m);
    assert.equal(entries[4]!.note, 'test funding');
    for (const e of entries) {
      assert.equal(typeof e.created_at, 'string');
      assert.ok(!('tx_hash' in e) && !('chain' in e), 'no on-chain fields on off-chain entries');
    }

    const trades = await getJson(t, `/api/pool/ledger/${w.address}?type=trade`);
    assert.deepEqual((trades.body.data as Json[]).map((e) => e.amount), [-2, -10]);
    assert.equal(trades.body.count, 2);
    const one = await getJson(t, `/api/pool/ledger/${w.address}?limit=1`);
    assert.deepEqual((one.body.data as Json[]).map((e) => e.type), ['refund']);
    assert.equal(one.body.count, 1);
    assert.deepEqual(await getJson(t, `/api/pool/ledger/${addr(0xdead02)}`), { status: 200, body: { success: true, data: [], count: 0 } });
    assert.deepEqual(await getJson(t, '/api/pool/ledger/0x12'), { status: 400, body: { success: false, error: 'Invalid wallet: must be 0x followed by 40 hex digits' } });
    assert.deepEqual(await getJson(t, `/api/pool/withdrawals/${w.address}?status=done`), {
      status: 400,
      body: { success: false, error: 'Invalid status: must be one of pending, sending, completed, rejected, failed' },
    });

    for (const [q, error] of [
      ['type=fee', 'Invalid type: must be one of deposit, withdraw, trade, settlement, refund'],
      ['type=bogus', 'Invalid type: must be one of deposit, withdraw, trade, settlement, refund'],
      ['limit=0', 'Invalid limit: must be between 1 and 100'],
      ['limit=101', 'Invalid limit: must be between 1 and 100'],
      ['limit=501', 'Invalid limit: must be between 1 and 100'],
      ['limit=abc', 'Invalid limit: must be between 1 and 100'],
    ] as const) {
      assert.deepEqual(await getJson(t, `/api/pool/ledger/${w.address}?${q}`), { status: 400, body: { success: false, error } }, q);
    }
  });

  it('applies the default ledger limit of 50 and accepts up to 100', async () => {
    const w = addr(0x5050);
    for (let i = 0; i < 55; i++) await deposit(w, '1');
    const def = await getJson(t, `/api/pool/ledger/${w}`);
    assert.equal((def.body.data as Json[]).length, 50);
    assert.equal(def.body.count, 50);
    const max = await getJson(t, `/api/pool/ledger/${w}?limit=100`);
    assert.equal(max.body.count, 55);
  });

  it('locks a withdrawal as pending; the operator completes it with a tx hash', async () => {
    const w = newWallet();
    await deposit(w.address, '100');
    const res = await withdraw(w, 40.25);
    assert.equal(res.statusCode, 200, res.body);
    const answer = res.json() as { success: boolean; data: { withdrawal: Json; balance: Json } };
    assert.equal(answer.success, true);
    const wd = answer.data.withdrawal;
    assert.equal(wd.status, 'pending');
    assert.equal(wd.amount, 40.25);
    assert.equal(wd.wallet_addr, w.address);
    assert.equal(wd.tx_hash, null);
    assert.deepEqual(answer.data.balance, {
      wallet_addr: w.address,
      balance: 100,
      locked: 40.25,
      total_deposited: 100,
      total_withdrawn: 0,
      available: 59.75,
      max_withdraw: 59.75,
      on_chain_available: null,
    });
    assert.deepEqual(await balance(w.address), answer.data.balance);

    // Locked money cannot be traded away.
    const m = await createMarket('Locked money market');
    await assert.rejects(
      placeTrade(t.deps.db, t.deps.clock, { wallet: w.address, marketId: m, side: 'yes', amount: 60n * USDC }),
      (e: unknown) => e instanceof HttpError && e.message === 'Insufficient balance',
    );

    const pending = await admin(t, 'GET', `/admin/withdrawals?status=pending&wallet=${w.address}`);
    assert.equal(pending.status, 200);
    assert.deepEqual((pending.body.data as Json[]).map((x) => x.id), [wd.id]);

    const txHash = `0x${'AB'.repeat(32)}`;
    const done = await admin(t, 'POST', `/admin/withdrawals/${wd.id}/complete`, { tx_hash: txHash, note: 'paid from treasury' });
    assert.equal(done.status, 200, JSON.stringify(done.body));
    assert.equal(done.body.status, 'completed');
    assert.equal(done.body.tx_hash, txHash.toLowerCase());
    assert.equal(done.body.chain, 'evm');
    assert.equal(done.body.note, 'paid from treasury');
    assert.equal(typeof done.body.completed_at, 'string');
    assert.deepEqual(await balance(w.address), {
      wallet_addr: w.address,
      balance: 59.75,
      locked: 0,
      total_deposited: 100,
      total_withdrawn: 40.25,
      available: 59.75,
      max_withdraw: 59.75,
      on_chain_available: null,
    });
    const ledger = await getJson(t, `/api/pool/ledger/${w.address}?type=withdraw`);
    const entry = (ledger.body.data as Json[])[0]!;
    assert.equal(entry.amount, -40.25);
    assert.equal(entry.tx_hash, txHash.toLowerCase());
    assert.equal(entry.chain, 'evm');
    assert.equal(entry.note, `withdrawal #${wd.id}`);

    const again = await admin(t, 'POST', `/admin/withdrawals/${wd.id}/complete`, { tx_hash: txHash });
    assert.deepEqual(again, { status: 409, body: { error: `Withdrawal ${wd.id} is already completed` } });
    assert.deepEqual(await admin(t, 'POST', `/admin/withdrawals/${wd.id}/reject`, {}), {
      status: 409,
      body: { error: `Withdrawal ${wd.id} is already completed` },
    });
    const mine = await getJson(t, `/api/pool/withdrawals/${w.address}`);
    assert.deepEqual((mine.body.data as Json[]).map((x) => [x.id, x.status]), [[wd.id, 'completed']]);
  });

  it('gives the money back when the operator rejects a withdrawal', async () => {
    const w = newWallet();
    await deposit(w.address, '30');
    const wd = (withdrawAnswer(await withdraw(w, '30'))).withdrawal;
    assert.equal((await balance(w.address)).available, 0);
    const rejected = await admin(t, 'POST', `/admin/withdrawals/${wd.id}/reject`, { note: 'address under review' });
    assert.equal(rejected.status, 200);
    assert.equal(rejected.body.status, 'rejected');
    assert.equal(rejected.body.note, 'address under review');
    const b = await balance(w.address);
    assert.equal(b.balance, 30);
    assert.equal(b.locked, 0);
    assert.equal(b.available, 30);
    assert.equal(b.total_withdrawn, 0);
    assert.deepEqual(await getJson(t, `/api/pool/ledger/${w.address}?type=withdraw`), { status: 200, body: { success: true, data: [], count: 0 } });
    // A rejected withdrawal is final; a body-less reject is accepted as having no note.
    assert.equal((await admin(t, 'POST', `/admin/withdrawals/${wd.id}/reject`)).status, 409);
    assert.equal((await admin(t, 'POST', `/admin/withdrawals/${wd.id}/complete`, { tx_hash: '0xabc' })).status, 409);
    assert.deepEqual(await admin(t, 'POST', '/admin/withdrawals/999999/reject', {}), { status: 404, body: { error: 'Withdrawal not found' } });
    assert.equal((await admin(t, 'POST', `/admin/withdrawals/${wd.id}/complete`, { tx_hash: 'has space' })).status, 400);
  });

  function withdrawAnswer(res: { statusCode: number; body: string; json(): unknown }) {
    assert.equal(res.statusCode, 200, res.body);
    return (res.json() as { data: { withdrawal: Json; balance: Json } }).data;
  }

  it('refuses amounts above max_withdraw, below the minimum, with 7 decimals, negative, NaN or huge', async () => {
    const w = newWallet();
    await deposit(w.address, '20');
    const cases: [unknown, string][] = [
      [20.000001, 'Insufficient balance'],
      ['25', 'Insufficient balance'],
      [0.5, 'Minimum withdrawal is 1 USDC'],
      ['1.0000001', 'amount must have at most 6 decimals'],
      [1.1234567, 'amount must have at most 6 decimals'],
      [-5, 'amount must be greater than 0'],
      ['-5', 'amount must be greater than 0'],
      [0, 'amount must be greater than 0'],
      ['NaN', 'amount must be a decimal number of USDC'],
      ['Infinity', 'amount must be a decimal number of USDC'],
      ['1e3', 'amount must be a decimal number of USDC'],
      [1e15, 'amount must be at most 1000000000 USDC'],
      ['99999999999999999999999999', 'amount must be at most 1000000000 USDC'],
      [true, 'amount must be a number'],
      [null, 'amount must be a number'],
      [{ v: 1 }, 'amount must be a number'],
    ];
    for (const [amount, error] of cases) {
      const res = await withdraw(w, amount);
      assert.deepEqual(errorOf(res), { status: 400, body: { success: false, error } }, `amount ${JSON.stringify(amount)}`);
    }
    // 1e400 is valid JSON that parses to Infinity.
    const huge = await signedPost(t, w.signer, WITHDRAW, `{"wallet_addr":"${w.address}","amount":1e400}`);
    assert.deepEqual(errorOf(huge), { status: 400, body: { success: false, error: 'invalid amount: must be a finite number' } });
    const missing = await signedPost(t, w.signer, WITHDRAW, { wallet_addr: w.address });
    assert.deepEqual(errorOf(missing), { status: 400, body: { success: false, error: 'missing required field: amount' } });
    const extra = await signedPost(t, w.signer, WITHDRAW, { wallet_addr: w.address, amount: 1, to: addr(1) });
    assert.deepEqual(errorOf(extra), { status: 400, body: { success: false, error: 'unknown field: to' } });
    // A wallet never funded can withdraw nothing.
    const empty = newWallet();
    assert.deepEqual(errorOf(await withdraw(empty, 1)), { status: 400, body: { success: false, error: 'Insufficient balance' } });

    const b = await balance(w.address);
    assert.equal(b.locked, 0);
    assert.equal(b.balance, 20);
    // Exactly max_withdraw is accepted, as a JSON number with 6 decimals.
    const ok = withdrawAnswer(await withdraw(w, 19.999999));
    assert.equal(ok.withdrawal.amount, 19.999999);
    assert.equal(ok.balance.max_withdraw, 0.000001);
    await admin(t, 'POST', `/admin/withdrawals/${ok.withdrawal.id}/reject`, {});
  });

  it('authenticates withdrawals: missing, foreign, replayed and API-key signatures', async () => {
    const w = newWallet();
    const other = newWallet();
    await deposit(w.address, '10');

    const unsigned = await t.app.inject({
      method: 'POST',
      url: WITHDRAW,
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ wallet_addr: w.address, amount: 1 }),
    });
    assert.deepEqual(errorOf(unsigned), { status: 401, body: { success: false, error: 'Signature required' } });

    const foreign = await signedPost(t, other.signer, WITHDRAW, { wallet_addr: w.address, amount: 1 });
    assert.deepEqual(errorOf(foreign), { status: 403, body: { success: false, error: 'Wallet mismatch' } });

    const first = await withdraw(w, 1);
    assert.equal(first.statusCode, 200);
    const replay = await signedPost(t, w.signer, WITHDRAW, { wallet_addr: w.address, amount: 1 }, { headers: first.sentHeaders });
    assert.deepEqual(errorOf(replay), { status: 401, body: { success: false, error: 'Signature already used' } });

    const key = await issueApiKey(t.deps.db, t.deps.secretsKey, w.address);
    const byKey = await signedPost(t, { apiKey: key }, WITHDRAW, { wallet_addr: w.address, amount: '2' });
    assert.equal(withdrawAnswer(byKey).withdrawal.amount, 2);
    const keyForOther = await signedPost(t, { apiKey: key }, WITHDRAW, { wallet_addr: other.address, amount: 1 });
    assert.deepEqual(errorOf(keyForOther), { status: 403, body: { success: false, error: 'API key wallet mismatch' } });
    const stale = await signedPost(t, w.signer, WITHDRAW, { wallet_addr: w.address, amount: 1 }, { ts: Math.floor(Date.now() / 1000) - 120 });
    assert.deepEqual(errorOf(stale), { status: 401, body: { success: false, error: 'Timestamp out of range' } });

    assert.equal((await balance(w.address)).locked, 3);
    for (const x of (await admin(t, 'GET', `/admin/withdrawals?wallet=${w.address}`)).body.data as Json[]) {
      await admin(t, 'POST', `/admin/withdrawals/${x.id}/reject`, {});
    }
  });

  it('answers a repeated Idempotency-Key with the first answer and locks once', async () => {
    const w = newWallet();
    await deposit(w.address, '10');
    const first = await withdraw(w, 4, { idempotencyKey: 'wd-1' });
    const second = await withdraw(w, 4, { idempotencyKey: 'wd-1' });
    assert.equal(second.statusCode, 200);
    assert.equal(second.headers['idempotent-replayed'], 'true');
    assert.deepEqual(second.json(), first.json());
    assert.equal((await balance(w.address)).locked, 4);
    const otherBody = await withdraw(w, 5, { idempotencyKey: 'wd-1' });
    assert.deepEqual(errorOf(otherBody), { status: 409, body: { success: false, error: 'Idempotency-Key reused with a different body' } });
    // A failed attempt is not remembered: the key can be used again once it would succeed.
    const tooMuch = await withdraw(w, 7, { idempotencyKey: 'wd-2' });
    assert.equal(tooMuch.statusCode, 400);
    const id = (await admin(t, 'GET', `/admin/withdrawals?wallet=${w.address}`)).body.data as Json[];
    await admin(t, 'POST', `/admin/withdrawals/${id[0]!.id}/reject`, {});
    assert.equal((await withdraw(w, 7, { idempotencyKey: 'wd-2' })).statusCode, 200);
    assert.equal((await balance(w.address)).locked, 7);
  });

  it('never locks more than the balance under concurrent withdrawals', async () => {
    const w = newWallet();
    await deposit(w.address, '100');
    // The same amount written 25 ways: 25 distinct signed bodies.
    const results = await Promise.all(Array.from({ length: 25 }, (_, i) => withdraw(w, `10${i ? `.${'0'.repeat(i)}` : ''}`)));
    const ok = results.filter((r) => r.statusCode === 200);
    assert.equal(ok.length, 10);
    for (const r of results.filter((x) => x.statusCode !== 200)) {
      assert.deepEqual(errorOf(r), { status: 400, body: { success: false, error: 'Insufficient balance' } });
    }
    const b = await balance(w.address);
    assert.equal(b.locked, 100);
    assert.equal(b.available, 0);
  });

  it('leaves deposits to the operator', async () => {
    const w = newWallet();
    const res = await signedPost(t, w.signer, DEPOSIT, { wallet_addr: w.address, tx_hash: `0x${'12'.repeat(32)}` });
    assert.deepEqual(errorOf(res), { status: 400, body: { success: false, error: 'Deposits are credited by the operator' } });
    const unsigned = await t.app.inject({ method: 'POST', url: DEPOSIT, headers: { 'content-type': 'application/json' }, payload: '{}' });
    assert.equal(unsigned.statusCode, 401);
  });

  it('drives withdrawals from the admin command line', async () => {
    await t.listen();
    const run = async (...args: string[]) => {
      const printed: unknown[] = [];
      const program = buildAdminProgram(() => createAdminClient(t.url, TEST_ADMIN_TOKEN), (v) => printed.push(v));
      await program.parseAsync(args, { from: 'user' });
      return printed[0] as Json;
    };
    const w = newWallet();
    await deposit(w.address, '9');
    const a = withdrawAnswer(await withdraw(w, 3)).withdrawal;
    const b = withdrawAnswer(await withdraw(w, 2)).withdrawal;
    const listed = await run('withdrawal', 'list', '--status', 'pending', '--wallet', w.address);
    assert.deepEqual((listed.data as Json[]).map((x) => x.id), [b.id, a.id]);
    const done = await run('withdrawal', 'complete', String(a.id), '--tx-hash', `0x${'cd'.repeat(32)}`, '--chain', 'base', '--note', 'batch 7');
    assert.equal(done.status, 'completed');
    assert.equal(done.chain, 'base');
    assert.equal((await run('withdrawal', 'reject', String(b.id), '--note', 'duplicate')).status, 'rejected');
    assert.equal((await run('withdrawal', 'check', String(a.id))).status, 'completed');
    assert.equal((await run('withdrawal', 'show', String(b.id))).note, 'duplicate');
    await assert.rejects(run('withdrawal', 'reject', String(a.id)), /409: Withdrawal \d+ is already completed/);
    const bal = await balance(w.address);
    assert.equal(bal.balance, 6);
    assert.equal(bal.total_withdrawn, 3);
    assert.equal(bal.locked, 0);
  });
});
