import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { createWalletClient, defineChain, erc20Abi, http, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { issueApiKey } from '../src/market/auth/api-key.repository.ts';
import { createEvmChain } from '../src/market/custody/evm-chain.ts';
import { inTransaction } from '../src/market/market-transaction.ts';
import { requestWithdrawal } from '../src/market/withdrawals/request-withdrawal.ts';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { startTestChain, type TestChain, type TestWallet } from './helpers/chain.ts';
import { admin, getJson, signedPost, type Signer } from './helpers/custody-client.ts';
import { assertBooksBalanced, USDC } from './helpers/market.ts';
import { startRpcProxy, type RpcProxy } from './helpers/rpc-proxy.ts';
import { waitFor } from './helpers/wait.ts';

const DEPOSIT = '/api/pool/deposit';
const WITHDRAW = '/api/pool/withdraw';
type Json = Record<string, unknown>;

describe('market custody over HTTP on a real local chain (CHAIN=evm)', () => {
  let chain: TestChain;
  let proxy: RpcProxy;
  let t: TestApp;

  before(async () => {
    chain = await startTestChain();
    proxy = await startRpcProxy(chain.rpcUrl);
    // No balance cache, so each answer shows the chain as it is at that moment; no periodic check,
    // so the tests decide when receipts are followed (reads and the admin check do it).
    const adapter = createEvmChain(chain.config({ rpcUrl: proxy.url }), { balanceCacheMs: 0 });
    t = await startTestApp({ chain: adapter, env: { RATE_LIMIT_MARKET_PER_MINUTE: '100000', WITHDRAWAL_CHECK_INTERVAL_MS: '0' } });
  });
  after(async () => {
    await t?.close();
    await proxy?.close();
    await chain?.close();
  });
  afterEach(async () => {
    proxy.mode = 'pass';
    await assertBooksBalanced(t.deps.db);
  });

  const signerOf = (w: TestWallet): Signer => ({ account: privateKeyToAccount(w.privateKey) });
  const errorOf = (res: { statusCode: number; json(): unknown }) => ({ status: res.statusCode, body: res.json() });
  const balance = async (wallet: string) => {
    const r = await getJson(t, `/api/pool/balance/${wallet}`);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    return r.body.data as Json;
  };
  const claim = (w: TestWallet, txHash: string, opts: { idempotencyKey?: string } = {}) =>
    signedPost(t, signerOf(w), DEPOSIT, { wallet_addr: w.address, tx_hash: txHash }, opts);
  const withdraw = (w: TestWallet, amount: unknown, opts: { idempotencyKey?: string } = {}) =>
    signedPost(t, signerOf(w), WITHDRAW, { wallet_addr: w.address, amount }, opts);
  const ok = (res: { statusCode: number; body: string; json(): unknown }) => {
    assert.equal(res.statusCode, 200, res.body);
    return (res.json() as { data: Json }).data;
  };
  const usdcOf = (who: string) => chain.balanceOf(chain.usdc, who as Hex);
  const hotWallet = () => chain.hotWallet.address;

  it('credits a deposit once; a second claim of the same transfer is refused', async () => {
    const [alice] = chain.depositors;
    const hash = await chain.transfer(chain.usdc, alice!, chain.vault, 100n * USDC);
    const first = ok(await claim(alice!, hash.toUpperCase().replace('0X', '0x'), { idempotencyKey: 'dep-1' }));
    const dep = first.deposit as Json;
    assert.equal(dep.amount, 100);
    assert.equal(dep.tx_hash, hash.toLowerCase());
    assert.equal(dep.chain, 'ganache');
    assert.equal(dep.wallet_addr, alice!.address);
    assert.equal(typeof dep.log_index, 'number');
    const bal = first.balance as Json;
    assert.equal(bal.balance, 100);
    assert.equal(bal.total_deposited, 100);
    assert.equal(bal.on_chain_available, Number(await usdcOf(hotWallet())) / 1e6);

    const replay = await claim(alice!, hash.toUpperCase().replace('0X', '0x'), { idempotencyKey: 'dep-1' });
    assert.equal(replay.headers['idempotent-replayed'], 'true');
    assert.deepEqual(replay.json(), { success: true, data: first });
    for (const opts of [{}, { idempotencyKey: 'dep-2' }]) {
      assert.deepEqual(errorOf(await claim(alice!, hash, opts)), { status: 409, body: { success: false, error: 'Deposit already credited' } });
    }
    // Two claims of a new transfer racing each other: exactly one credit.
    const hash2 = await chain.transfer(chain.usdc, alice!, chain.vault, 5n * USDC);
    const raced = await Promise.all([claim(alice!, hash2), claim(alice!, hash2.toUpperCase().replace('0X', '0x')), claim(alice!, hash2, { idempotencyKey: 'x' })]);
    assert.deepEqual(raced.map((r) => r.statusCode).sort(), [200, 409, 409]);

    const b = await balance(alice!.address);
    assert.equal(b.balance, 105);
    assert.equal(b.total_deposited, 105);
    const ledger = await getJson(t, `/api/pool/ledger/${alice!.address}?type=deposit`);
    const entries = ledger.body.data as Json[];
    assert.deepEqual(entries.map((e) => [e.amount, e.tx_hash, e.chain]), [
      [5, hash2.toLowerCase(), 'ganache'],
      [100, hash.toLowerCase(), 'ganache'],
    ]);
  });

  it('refuses a deposit to the wrong address, of the wrong token, by another wallet, or unknown', async () => {
    const [alice, bob] = chain.depositors;
    const toBob = await chain.transfer(chain.usdc, alice!, bob!.address, 5n * USDC);
    const r1 = errorOf(await claim(alice!, toBob));
    assert.equal(r1.status, 400);
    assert.match((r1.body as Json).error as string, new RegExp(`^Transaction ${toBob} sends USDC from ${alice!.address} to ${bob!.address}, not to the vault`));
    const other = await chain.transfer(chain.otherToken, alice!, chain.vault, 5n * USDC);
    const r2 = errorOf(await claim(alice!, other));
    assert.equal(r2.status, 400);
    assert.match((r2.body as Json).error as string, /sends token .* to the vault, not USDC/);
    const bobs = await chain.transfer(chain.usdc, bob!, chain.vault, 5n * USDC);
    const r3 = errorOf(await claim(alice!, bobs));
    assert.equal(r3.status, 400);
    assert.match((r3.body as Json).error as string, new RegExp(`from ${bob!.address}, not from ${alice!.address}`));
    const unknown = `0x${'ab'.repeat(32)}`;
    assert.deepEqual(errorOf(await claim(alice!, unknown)), {
      status: 400,
      body: { success: false, error: `Transaction ${unknown} was not found on chain ganache` },
    });
    assert.deepEqual(errorOf(await claim(alice!, '0x1234')), {
      status: 400,
      body: { success: false, error: 'invalid tx_hash: must be 0x followed by 64 hex digits' },
    });
    // Bob's own transfer is his to claim, here with an API key (HMAC).
    const key = await issueApiKey(t.deps.db, t.deps.secretsKey, bob!.address);
    const byKey = await signedPost(t, { apiKey: key }, DEPOSIT, { wallet_addr: bob!.address, tx_hash: bobs });
    assert.equal((ok(byKey).balance as Json).balance, 5);
  });

  it('sends a withdrawal from the hot wallet and finalizes it: balances on chain and in the books', async () => {
    const [alice] = chain.depositors;
    const before = await balance(alice!.address);
    const hotBefore = await usdcOf(hotWallet());
    const aliceBefore = await usdcOf(alice!.address);
    const data = ok(await withdraw(alice!, '30.5', { idempotencyKey: 'wd-a' }));
    const wd = data.withdrawal as Json;
    assert.equal(wd.status, 'completed', 'a chain that mines at once confirms within the request');
    assert.match(wd.tx_hash as string, /^0x[0-9a-f]{64}$/);
    assert.equal(wd.chain, 'ganache');
    assert.equal(await usdcOf(hotWallet()), hotBefore - 30_500_000n);
    assert.equal(await usdcOf(alice!.address), aliceBefore + 30_500_000n);
    const after = await balance(alice!.address);
    assert.equal(after.balance, (before.balance as number) - 30.5);
    assert.equal(after.locked, 0);
    assert.equal(after.total_withdrawn, 30.5);
    assert.equal(after.on_chain_available, Number(hotBefore - 30_500_000n) / 1e6);
    const entry = ((await getJson(t, `/api/pool/ledger/${alice!.address}?type=withdraw`)).body.data as Json[])[0]!;
    assert.deepEqual([entry.amount, entry.tx_hash, entry.chain], [-30.5, wd.tx_hash, 'ganache']);

    // The stored answer is the one the client got, with the final status.
    const replay = await withdraw(alice!, '30.5', { idempotencyKey: 'wd-a' });
    assert.equal(replay.headers['idempotent-replayed'], 'true');
    assert.deepEqual((replay.json() as { data: Json }).data, data);
    assert.equal(await usdcOf(alice!.address), aliceBefore + 30_500_000n, 'a replay sends nothing');
  });

  it('keeps a sent withdrawal locked until its receipt, then completes it when the balance is read', async () => {
    const [alice] = chain.depositors;
    const start = await balance(alice!.address);
    await chain.pauseMining();
    let wd: Json;
    try {
      wd = ok(await withdraw(alice!, 5)).withdrawal as Json;
      assert.equal(wd.status, 'sending');
      assert.match(wd.tx_hash as string, /^0x[0-9a-f]{64}$/);
      const locked = await balance(alice!.address);
      assert.equal(locked.locked, 5);
      assert.equal(locked.balance, start.balance);
      const checked = await admin(t, 'POST', `/admin/withdrawals/${wd.id}/check`);
      assert.equal(checked.body.status, 'sending');
      assert.equal(checked.body.nonce, Number(checked.body.nonce));
      // Handed to the chain: the operator cannot simply reject it.
      const refused = await admin(t, 'POST', `/admin/withdrawals/${wd.id}/reject`, {});
      assert.equal(refused.status, 409);
      assert.match(refused.body.error as string, /may have been sent on chain/);
    } finally {
      await chain.resumeMining();
    }
    await chain.mine(1);
    const done = await balance(alice!.address);
    assert.equal(done.locked, 0);
    assert.equal(done.balance, (start.balance as number) - 5);
    assert.equal(done.total_withdrawn, (start.total_withdrawn as number) + 5);
    const listed = await getJson(t, `/api/pool/withdrawals/${alice!.address}?limit=1`);
    assert.deepEqual((listed.body.data as Json[]).map((x) => [x.id, x.status]), [[wd.id, 'completed']]);
  });

  it('never unlocks a withdrawal whose broadcast answer was lost; it completes once mined', async () => {
    const [alice] = chain.depositors;
    const start = await balance(alice!.address);
    await chain.pauseMining();
    let wd: Json;
    try {
      proxy.mode = 'lose-broadcast';
      wd = ok(await withdraw(alice!, 4)).withdrawal as Json;
      proxy.mode = 'pass';
      assert.equal(wd.status, 'sending');
      assert.match(wd.tx_hash as string, /^0x[0-9a-f]{64}$/);
      const row = await admin(t, 'GET', `/admin/withdrawals/${wd.id}`);
      assert.match(row.body.error as string, /broadcast answer lost/);
      assert.equal((await balance(alice!.address)).locked, 4);
    } finally {
      await chain.resumeMining();
    }
    await chain.mine(1);
    const checked = await admin(t, 'POST', `/admin/withdrawals/${wd.id}/check`);
    assert.equal(checked.body.status, 'completed');
    const b = await balance(alice!.address);
    assert.equal(b.locked, 0);
    assert.equal(b.balance, (start.balance as number) - 4);
  });

  it('keeps a broadcast that never reached the node locked; only the operator releases it', async () => {
    const [alice] = chain.depositors;
    const start = await balance(alice!.address);
    const aliceOnChain = await usdcOf(alice!.address);
    proxy.mode = 'drop-broadcast';
    const wd = ok(await withdraw(alice!, 3)).withdrawal as Json;
    proxy.mode = 'pass';
    assert.equal(wd.status, 'sending');
    // The node never heard of it: pending, never failed on a guess.
    for (let i = 0; i < 2; i++) {
      assert.equal((await admin(t, 'POST', `/admin/withdrawals/${wd.id}/check`)).body.status, 'sending');
      assert.equal((await balance(alice!.address)).locked, 3);
    }
    assert.equal((await admin(t, 'POST', `/admin/withdrawals/${wd.id}/reject`, { note: 'never broadcast' })).status, 409);
    const released = await admin(t, 'POST', `/admin/withdrawals/${wd.id}/reject`, { note: 'never broadcast', force: true });
    assert.equal(released.status, 200);
    assert.equal(released.body.status, 'rejected');
    const b = await balance(alice!.address);
    assert.equal(b.locked, 0);
    assert.equal(b.balance, start.balance);
    assert.equal(await usdcOf(alice!.address), aliceOnChain);
  });

  it('fails and unlocks a withdrawal the node refuses, answers 503, and forgets its Idempotency-Key', async () => {
    const [alice] = chain.depositors;
    const start = await balance(alice!.address);
    proxy.mode = 'reject-broadcast';
    const refused = await withdraw(alice!, 2, { idempotencyKey: 'wd-refused' });
    assert.deepEqual(errorOf(refused), { status: 503, body: { success: false, error: 'Withdrawal could not be sent, try again later' } });
    assert.equal(refused.headers['retry-after'], '5');
    proxy.mode = 'pass';
    const failed = (await admin(t, 'GET', `/admin/withdrawals?wallet=${alice!.address}&status=failed`)).body.data as Json[];
    assert.equal(failed.length, 1);
    assert.match(failed[0]!.error as string, /^send_rejected: /);
    assert.equal((await balance(alice!.address)).locked, 0);
    // The same key, retried once the chain takes it, sends the withdrawal.
    const retried = ok(await withdraw(alice!, 2, { idempotencyKey: 'wd-refused' }));
    assert.equal((retried.withdrawal as Json).status, 'completed');
    assert.equal((await balance(alice!.address)).balance, (start.balance as number) - 2);
  });

  it('finalizes a withdrawal whose transaction reverted on chain as failed, and unlocks it', async () => {
    const [alice, , carol] = chain.depositors;
    const start = await balance(alice!.address);
    // Carol may spend the hot wallet's USDC; she will empty it between the withdrawal's signing and its mining.
    const viemChain = defineChain({ id: chain.chainId, name: 'ganache', nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 }, rpcUrls: { default: { http: [chain.rpcUrl] } } });
    const walletOf = (w: TestWallet) => createWalletClient({ account: privateKeyToAccount(w.privateKey), chain: viemChain, transport: http(chain.rpcUrl) });
    await walletOf(chain.hotWallet).writeContract({ address: chain.usdc, abi: erc20Abi, functionName: 'approve', args: [carol!.address, 2n ** 256n - 1n] });
    const hotBalance = await usdcOf(hotWallet());
    await chain.pauseMining();
    let wd: Json;
    try {
      wd = ok(await withdraw(alice!, 6)).withdrawal as Json;
      assert.equal(wd.status, 'sending');
      const fees = await chain.client.estimateFeesPerGas();
      await walletOf(carol!).writeContract({
        address: chain.usdc,
        abi: erc20Abi,
        functionName: 'transferFrom',
        args: [chain.hotWallet.address, carol!.address, hotBalance],
        gas: 100_000n,
        maxFeePerGas: fees.maxFeePerGas * 10n,
        maxPriorityFeePerGas: fees.maxFeePerGas * 5n,
      });
    } finally {
      await chain.resumeMining();
    }
    await chain.mine(1);
    try {
      const receipt = await chain.client.getTransactionReceipt({ hash: wd.tx_hash as Hex });
      assert.equal(receipt.status, 'reverted', 'the withdrawal was mined after the hot wallet was emptied');
      const checked = await admin(t, 'POST', `/admin/withdrawals/${wd.id}/check`);
      assert.equal(checked.body.status, 'failed');
      assert.match(checked.body.error as string, /reverted on chain/);
      const b = await balance(alice!.address);
      assert.equal(b.locked, 0);
      assert.equal(b.balance, start.balance);
      assert.equal(b.total_withdrawn, start.total_withdrawn);
    } finally {
      await chain.transfer(chain.usdc, carol!, hotWallet(), hotBalance);
    }
  });

  it('limits max_withdraw to what the hot wallet holds', async () => {
    const [alice, , carol] = chain.depositors;
    const hot = await usdcOf(hotWallet());
    const keep = 10n * USDC;
    await chain.transfer(chain.usdc, chain.hotWallet, carol!.address, hot - keep);
    try {
      const b = await balance(alice!.address);
      assert.equal(b.on_chain_available, 10);
      assert.equal(b.max_withdraw, 10);
      assert.ok((b.available as number) > 10);
      assert.deepEqual(errorOf(await withdraw(alice!, 20)), { status: 400, body: { success: false, error: 'Amount exceeds max_withdraw (10 USDC)' } });
      assert.equal((await balance(alice!.address)).locked, 0);
    } finally {
      await chain.transfer(chain.usdc, carol!, hotWallet(), hot - keep);
    }
  });

  it('answers the balance without the chain when the RPC is down; deposits and withdrawals get 503', async () => {
    const [alice] = chain.depositors;
    const hash = await chain.transfer(chain.usdc, alice!, chain.vault, 2n * USDC);
    const up = await balance(alice!.address);
    proxy.mode = 'down';
    const down = await balance(alice!.address);
    assert.equal(down.on_chain_available, null);
    assert.equal(down.max_withdraw, down.available);
    assert.deepEqual({ ...down, on_chain_available: up.on_chain_available, max_withdraw: up.max_withdraw }, up);
    const unavailable = { status: 503, body: { success: false, error: 'Chain unavailable, try again later' } };
    const dep = await claim(alice!, hash);
    assert.deepEqual(errorOf(dep), unavailable);
    assert.equal(dep.headers['retry-after'], '5');
    assert.deepEqual(errorOf(await withdraw(alice!, 1)), unavailable);
    assert.equal((await getJson(t, `/api/pool/ledger/${alice!.address}`)).status, 200);
    proxy.mode = 'pass';
    assert.equal((ok(await claim(alice!, hash)).deposit as Json).amount, 2);
    const b = await balance(alice!.address);
    assert.equal(b.balance, (up.balance as number) + 2);
    assert.equal(b.locked, 0);
  });

  it('sends queued withdrawals and follows receipts from the periodic reconciler', async () => {
    const [alice] = chain.depositors;
    const start = await balance(alice!.address);
    // A second instance on the same database whose reconciler runs every 100 ms.
    const adapter = createEvmChain(chain.config({ rpcUrl: proxy.url }), { balanceCacheMs: 0 });
    const worker = await startTestApp({ database: t.database, chain: adapter, env: { WITHDRAWAL_CHECK_INTERVAL_MS: '100' } });
    try {
      // A withdrawal committed by a process that died before sending it: still pending, nothing sent.
      const queued = await inTransaction(t.deps.db, (trx) =>
        requestWithdrawal(trx, { wallet: alice!.address, amount: 7n * USDC, chain: 'ganache', onChainAvailable: null, minUnits: USDC, at: new Date() }),
      );
      let last: unknown = null;
      const row = await waitFor(
        async () => {
          const r = await admin(t, 'GET', `/admin/withdrawals/${queued.withdrawal.id}`);
          last = r.body;
          return r.body.status === 'completed' ? r.body : null;
        },
        { timeoutMs: 60_000, everyMs: 50, message: () => `withdrawal ${queued.withdrawal.id} not completed by the reconciler: ${JSON.stringify(last)}` },
      );
      assert.match(row.tx_hash as string, /^0x[0-9a-f]{64}$/);
      const b = await getJson(t, `/api/pool/ledger/${alice!.address}?type=withdraw&limit=1`);
      assert.equal((b.body.data as Json[])[0]!.tx_hash, row.tx_hash);
      const after = await balance(alice!.address);
      assert.equal(after.balance, (start.balance as number) - 7);
      assert.equal(after.locked, 0);
    } finally {
      await worker.close();
    }
  });
});
