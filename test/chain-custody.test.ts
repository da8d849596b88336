import assert from 'node:assert/strict';
import { createServer as createHttpServer } from 'node:http';
import { createServer, type Server, type Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { generatePrivateKey, privateKeyToAddress } from 'viem/accounts';
import { ChainError, type ChainAdapter, type ChainErrorCode } from '../src/market/custody/chain-adapter.ts';
import { createChainAdapter } from '../src/market/custody/create-chain-adapter.ts';
import { createEvmChain } from '../src/market/custody/evm-chain.ts';
import { MINTED, startTestChain, type TestChain } from './helpers/chain.ts';
import { closedPort } from './helpers/closed-port.ts';

const USDC = 1_000_000n;

async function chainError(p: Promise<unknown>, code: ChainErrorCode): Promise<ChainError> {
  try {
    await p;
  } catch (e) {
    assert.ok(e instanceof ChainError, `expected a ChainError, got ${String(e)}`);
    assert.equal(e.code, code, e.message);
    return e;
  }
  assert.fail(`expected ChainError ${code}`);
}

/** A TCP server that accepts connections and never answers: an RPC that hangs. */
async function startSilentServer(): Promise<{ url: string; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/**
 * A JSON-RPC proxy to the chain that delivers eth_sendRawTransaction but answers it with a
 * gateway error: a broadcast whose answer is lost, where the withdrawal went out anyway.
 */
async function startLossyProxy(target: string): Promise<{ url: string; close(): Promise<void> }> {
  const server = createHttpServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    const upstream = await fetch(target, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    const answer = await upstream.text();
    if ((JSON.parse(body) as { method?: string }).method === 'eth_sendRawTransaction') {
      res.writeHead(502, { 'content-type': 'text/plain' }).end('bad gateway');
      return;
    }
    res.writeHead(upstream.status, { 'content-type': 'application/json' }).end(answer);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function closedPortUrl(): Promise<string> {
  return `http://127.0.0.1:${await closedPort()}`;
}

describe('on-chain custody (EVM, local ganache chain)', () => {
  let chain: TestChain;
  let adapter: ChainAdapter;

  before(async () => {
    chain = await startTestChain();
    adapter = createEvmChain(chain.config(), { balanceCacheMs: 0 });
  });
  after(async () => {
    await chain?.close();
  });

  it('verifies a USDC transfer from the wallet to the vault', async () => {
    const [alice] = chain.depositors;
    const hash = await chain.transfer(chain.usdc, alice!, chain.vault, 25n * USDC);
    const d = await adapter.verifyDeposit(hash, alice!.address.toUpperCase().replace('0X', '0x'));
    assert.equal(d.amountUnits, 25n * USDC);
    assert.equal(d.from, alice!.address);
    assert.equal(d.to, chain.vault);
    assert.equal(d.txHash, hash.toLowerCase());
    assert.equal(typeof d.logIndex, 'number');
    assert.deepEqual(d.logIndexes, [d.logIndex]);
    const receipt = await chain.client.getTransactionReceipt({ hash });
    assert.equal(d.blockNumber, receipt.blockNumber);
    assert.equal(d.logIndex, receipt.logs[0]!.logIndex);
    assert.equal(d.confirmations, 1);
    // Verifying again gives the same key: the caller's unique (chain, tx_hash, log_index) dedupes.
    assert.deepEqual(await adapter.verifyDeposit(hash, alice!.address), d);
  });

  it('sums several transfers to the vault in one transaction, keyed by the lowest log index', async () => {
    const [alice, bob] = chain.depositors;
    const hash = await chain.transferMany(chain.usdc, alice!, [
      [bob!.address, 1n * USDC],
      [chain.vault, 2n * USDC],
      [chain.vault, 3n * USDC],
    ]);
    const d = await adapter.verifyDeposit(hash, alice!.address);
    const logs = (await chain.client.getTransactionReceipt({ hash })).logs.map((l) => l.logIndex);
    assert.equal(logs.length, 3);
    assert.equal(d.amountUnits, 5n * USDC);
    assert.deepEqual(d.logIndexes, [logs[1], logs[2]]);
    assert.equal(d.logIndex, logs[1]);
  });

  it('refuses a transfer to another address than the vault', async () => {
    const [alice, bob] = chain.depositors;
    const hash = await chain.transfer(chain.usdc, alice!, bob!.address, 5n * USDC);
    const e = await chainError(adapter.verifyDeposit(hash, alice!.address), 'no_transfer_to_vault');
    assert.match(e.message, new RegExp(bob!.address));
  });

  it('refuses a transfer of another token to the vault', async () => {
    const [alice] = chain.depositors;
    const hash = await chain.transfer(chain.otherToken, alice!, chain.vault, 5n * USDC);
    const e = await chainError(adapter.verifyDeposit(hash, alice!.address), 'wrong_token');
    assert.match(e.message, new RegExp(chain.otherToken));
  });

  it('refuses a transfer to the vault made by another wallet', async () => {
    const [alice, bob] = chain.depositors;
    const hash = await chain.transfer(chain.usdc, bob!, chain.vault, 5n * USDC);
    const e = await chainError(adapter.verifyDeposit(hash, alice!.address), 'no_transfer_to_vault');
    assert.match(e.message, new RegExp(`from ${bob!.address}, not from ${alice!.address}`));
    assert.equal((await adapter.verifyDeposit(hash, bob!.address)).amountUnits, 5n * USDC);
  });

  it('refuses a deposit without enough confirmations, then accepts it after more blocks', async () => {
    const strict = createEvmChain(chain.config({ confirmations: 3 }));
    const [, , carol] = chain.depositors;
    const hash = await chain.transfer(chain.usdc, carol!, chain.vault, 7n * USDC);
    const e = await chainError(strict.verifyDeposit(hash, carol!.address), 'insufficient_confirmations');
    assert.deepEqual([e.details.confirmations, e.details.required], [1, 3]);
    assert.equal(await strict.withdrawalStatus(hash), 'pending', 'the same threshold applies to withdrawals');
    await chain.mine(1);
    const e2 = await chainError(strict.verifyDeposit(hash, carol!.address), 'insufficient_confirmations');
    assert.equal(e2.details.confirmations, 2);
    await chain.mine(1);
    const d = await strict.verifyDeposit(hash, carol!.address);
    assert.equal(d.confirmations, 3);
    assert.equal(d.amountUnits, 7n * USDC);
    assert.equal(await strict.withdrawalStatus(hash), 'confirmed');
  });

  it('says a transaction is pending while it waits in the pool, and not found when unknown', async () => {
    const [alice] = chain.depositors;
    await chain.pauseMining();
    let hash: `0x${string}`;
    try {
      hash = await chain.transfer(chain.usdc, alice!, chain.vault, 3n * USDC, { gas: 100_000n });
      await chainError(adapter.verifyDeposit(hash, alice!.address), 'tx_pending');
      assert.equal(await adapter.withdrawalStatus(hash), 'pending');
    } finally {
      await chain.resumeMining();
    }
    await chain.mine(1);
    assert.equal((await adapter.verifyDeposit(hash, alice!.address)).amountUnits, 3n * USDC);
    await chainError(adapter.verifyDeposit(`0x${'ab'.repeat(32)}`, alice!.address), 'tx_not_found');
    assert.equal(await adapter.withdrawalStatus(`0x${'ab'.repeat(32)}`), 'pending', 'unknown is never declared failed');
  });

  it('refuses a reverted transaction, which is a failed withdrawal', async () => {
    const [alice] = chain.depositors;
    const balance = await chain.balanceOf(chain.usdc, alice!.address);
    const hash = await chain.transfer(chain.usdc, alice!, chain.vault, balance + 1n, { gas: 100_000n });
    await chainError(adapter.verifyDeposit(hash, alice!.address), 'tx_reverted');
    assert.equal(await adapter.withdrawalStatus(hash), 'failed');
  });

  it('refuses malformed input', async () => {
    await chainError(adapter.verifyDeposit('0x1234', chain.depositors[0]!.address), 'invalid_request');
    await chainError(adapter.verifyDeposit(`0x${'ab'.repeat(32)}`, 'alice'), 'invalid_request');
    await chainError(adapter.sendWithdrawal(chain.depositors[0]!.address, 0n), 'invalid_request');
    await chainError(adapter.sendWithdrawal('0x12', 1n), 'invalid_request');
  });

  it('sends a withdrawal from the hot wallet, confirms it and moves the balances', async () => {
    const [, bob] = chain.depositors;
    const hotBefore = await chain.balanceOf(chain.usdc, chain.hotWallet.address);
    const bobBefore = await chain.balanceOf(chain.usdc, bob!.address);
    assert.equal(hotBefore, MINTED);
    assert.equal(await adapter.onChainAvailable(), hotBefore);

    const sent = await adapter.sendWithdrawal(bob!.address, 12_345_678n);
    assert.match(sent.txHash, /^0x[0-9a-f]{64}$/);
    assert.equal(typeof sent.nonce, 'number');
    assert.equal(await adapter.withdrawalStatus(sent.txHash), 'confirmed');
    const tx = await chain.client.getTransaction({ hash: sent.txHash as `0x${string}` });
    assert.equal(tx.from.toLowerCase(), chain.hotWallet.address);
    assert.equal(tx.nonce, sent.nonce);

    assert.equal(await chain.balanceOf(chain.usdc, chain.hotWallet.address), hotBefore - 12_345_678n);
    assert.equal(await chain.balanceOf(chain.usdc, bob!.address), bobBefore + 12_345_678n);
    assert.equal(await adapter.onChainAvailable(), hotBefore - 12_345_678n);
  });

  it('sends concurrent withdrawals with consecutive nonces', async () => {
    const [alice, bob, carol] = chain.depositors;
    const hotBefore = await chain.balanceOf(chain.usdc, chain.hotWallet.address);
    const sent = await Promise.all([alice, bob, carol].map((w) => adapter.sendWithdrawal(w!.address, 1n * USDC)));
    const nonces = sent.map((s) => s.nonce).sort((a, b) => a - b);
    assert.deepEqual(nonces, [nonces[0]!, nonces[0]! + 1, nonces[0]! + 2]);
    for (const s of sent) assert.equal(await adapter.withdrawalStatus(s.txHash), 'confirmed');
    assert.equal(await chain.balanceOf(chain.usdc, chain.hotWallet.address), hotBefore - 3n * USDC);
  });

  it('refuses a withdrawal larger than the hot wallet holds, sending nothing', async () => {
    const hot = await chain.balanceOf(chain.usdc, chain.hotWallet.address);
    const nonce = await chain.client.getTransactionCount({ address: chain.hotWallet.address });
    await chainError(adapter.sendWithdrawal(chain.depositors[0]!.address, hot + 1n), 'hot_wallet_insufficient_funds');
    assert.equal(await chain.client.getTransactionCount({ address: chain.hotWallet.address }), nonce);
  });

  it('refuses a withdrawal the hot wallet cannot pay gas for, sending nothing', async () => {
    const key = generatePrivateKey();
    const poor = privateKeyToAddress(key).toLowerCase() as `0x${string}`;
    await chain.transfer(chain.usdc, chain.depositors[0]!, poor, 5n * USDC);
    const noGas = createEvmChain(chain.config({ hotWalletPrivateKey: key }));
    assert.equal(await noGas.onChainAvailable(), 5n * USDC);
    await chainError(noGas.sendWithdrawal(chain.depositors[1]!.address, 1n * USDC), 'send_rejected');
    assert.equal(await chain.client.getTransactionCount({ address: poor }), 0);
    assert.equal(await chain.balanceOf(chain.usdc, poor), 5n * USDC);
  });

  it('keeps the hash of a withdrawal whose broadcast answer was lost, so it can be followed', async () => {
    const proxy = await startLossyProxy(chain.rpcUrl);
    try {
      const lossy = createEvmChain(chain.config({ rpcUrl: proxy.url }));
      const [, bob] = chain.depositors;
      const bobBefore = await chain.balanceOf(chain.usdc, bob!.address);
      const e = await chainError(lossy.sendWithdrawal(bob!.address, 4n * USDC), 'chain_unavailable');
      assert.match(e.details.txHash ?? '', /^0x[0-9a-f]{64}$/);
      assert.match(e.message, /may have been sent/);
      // It did go out: paying it again would pay twice.
      assert.equal(await adapter.withdrawalStatus(e.details.txHash!), 'confirmed');
      assert.equal(await chain.balanceOf(chain.usdc, bob!.address), bobBefore + 4n * USDC);
    } finally {
      await proxy.close();
    }
  });

  it('reuses a balance answer within the cache window and forgets it on its own withdrawal', async () => {
    let clock = 0;
    const cached = createEvmChain(chain.config(), { balanceCacheMs: 1000, now: () => clock });
    const first = await cached.onChainAvailable();
    await chain.transfer(chain.usdc, chain.depositors[0]!, chain.hotWallet.address, 1n);
    assert.equal(await cached.onChainAvailable(), first, 'cached');
    clock += 1000;
    assert.equal(await cached.onChainAvailable(), first! + 1n);
    await cached.sendWithdrawal(chain.depositors[0]!.address, 2n);
    assert.equal(await cached.onChainAvailable(), first! - 1n);
  });

  it('refuses to work against a token that is not 6 decimals or a chain of another id', async () => {
    const wrongChain = createEvmChain(chain.config({ chainId: 1 }));
    await chainError(wrongChain.verifyDeposit(`0x${'ab'.repeat(32)}`, chain.vault), 'misconfigured');
    assert.equal(await wrongChain.onChainAvailable(), null);
    const notAToken = createEvmChain(chain.config({ tokenAddress: chain.vault }));
    await chainError(notAToken.sendWithdrawal(chain.vault, 1n), 'misconfigured');
  });

  it('answers null for the on-chain balance and chain_unavailable elsewhere when the RPC is down', async () => {
    const down = createEvmChain(chain.config({ rpcUrl: await closedPortUrl() }), { balanceCacheMs: 0 });
    assert.equal(await down.onChainAvailable(), null);
    await chainError(down.verifyDeposit(`0x${'ab'.repeat(32)}`, chain.depositors[0]!.address), 'chain_unavailable');
    const e = await chainError(down.sendWithdrawal(chain.depositors[0]!.address, 1n), 'chain_unavailable');
    assert.equal(e.details.txHash, undefined, 'nothing was signed, so nothing can have been sent');
    assert.doesNotMatch(e.message, /127\.0\.0\.1/, 'the RPC URL (often with an API key) stays out of messages');
    await chainError(down.withdrawalStatus(`0x${'ab'.repeat(32)}`), 'chain_unavailable');
  });

  it('gives up on an RPC that never answers after the configured timeout', async () => {
    const silent = await startSilentServer();
    try {
      const slow = createEvmChain(chain.config({ rpcUrl: silent.url, rpcTimeoutMs: 200 }), { balanceCacheMs: 0 });
      assert.equal(await slow.onChainAvailable(), null);
      const e = await chainError(slow.verifyDeposit(`0x${'ab'.repeat(32)}`, chain.depositors[0]!.address), 'chain_unavailable');
      assert.match(e.message, /did not answer in time/);
    } finally {
      await silent.close();
    }
  });
});

describe('CHAIN=none', () => {
  it('has no on-chain balance and leaves deposits and withdrawals to the operator', async () => {
    const none = await createChainAdapter({ kind: 'none' });
    assert.equal(none.kind, 'none');
    assert.equal(none.name, null);
    assert.equal(await none.onChainAvailable(), null);
    await chainError(none.verifyDeposit(`0x${'ab'.repeat(32)}`, `0x${'cd'.repeat(20)}`), 'chain_disabled');
    await chainError(none.sendWithdrawal(`0x${'cd'.repeat(20)}`, 1n), 'chain_disabled');
    await chainError(none.withdrawalStatus(`0x${'ab'.repeat(32)}`), 'chain_disabled');
  });
});
