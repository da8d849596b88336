import {
  BaseError,
  createPublicClient,
  defineChain,
  Eip1559FeesNotSupportedError,
  encodeFunctionData,
  HttpRequestError,
  http,
  isAddress,
  keccak256,
  LimitExceededRpcError,
  parseEventLogs,
  TimeoutError,
  TransactionNotFoundError,
  TransactionReceiptNotFoundError,
  type Hex,
  type PublicClient,
  type TransactionReceipt,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import type { EvmChainConfig } from '../../config/chain.ts';
import {
  ChainError,
  type ChainAdapter,
  type SentWithdrawal,
  type VerifiedDeposit,
  type WithdrawalStatus,
} from './chain-adapter.ts';
import { erc20Abi } from './erc20-abi.ts';

export interface EvmChainOptions {
  /**
   * How long an on-chain balance answer is reused. Balance pages are read far more often than
   * the hot wallet changes; this adapter's own withdrawals drop the cached value at once.
   */
  readonly balanceCacheMs?: number;
  readonly now?: () => number;
}

type Address = `0x${string}`;

const TOKEN_DECIMALS = 6;
const TX_HASH = /^0x[0-9a-fA-F]{64}$/;
/** Headroom over the gas estimate: a recipient's balance going to zero meanwhile costs more. */
const GAS_HEADROOM_PERCENT = 125n;

const lower = (a: string): Address => a.toLowerCase() as Address;

/** A failure of the transport itself (down, slow, overloaded), as opposed to an answer. */
function isTransportFailure(e: unknown): boolean {
  if (!(e instanceof BaseError)) return e instanceof TypeError || (e instanceof Error && e.name === 'AbortError');
  return (
    e.walk((x) => x instanceof HttpRequestError || x instanceof TimeoutError || x instanceof LimitExceededRpcError) !==
    null
  );
}

/** The message never includes the RPC URL: hosted RPC URLs often carry an API key. */
function unavailable(e: unknown, txHash?: string): ChainError {
  const slow = e instanceof BaseError && e.walk((x) => x instanceof TimeoutError) !== null;
  const what = slow ? 'did not answer in time' : 'is unreachable or failed';
  const err = new ChainError(
    'chain_unavailable',
    txHash === undefined
      ? `the chain RPC ${what}`
      : `the chain RPC ${what} while broadcasting; the withdrawal ${txHash} may have been sent`,
    txHash === undefined ? {} : { txHash },
  );
  err.cause = e;
  return err;
}

/** Any failure that is not already a typed answer means the chain could not be asked. */
async function ask<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    if (e instanceof ChainError) throw e;
    throw unavailable(e);
  }
}

function parseTxHash(raw: string): Hex {
  if (typeof raw !== 'string' || !TX_HASH.test(raw)) {
    throw new ChainError('invalid_request', 'tx hash must be 0x followed by 64 hex digits');
  }
  return lower(raw);
}

function parseAddress(raw: string, what: string): Address {
  if (typeof raw !== 'string' || !isAddress(raw, { strict: false })) {
    throw new ChainError('invalid_request', `${what} must be 0x followed by 40 hex digits`);
  }
  return lower(raw);
}

function shortMessage(e: unknown): string {
  if (e instanceof BaseError) return e.shortMessage;
  return e instanceof Error ? e.message : String(e);
}

/**
 * CHAIN=evm: deposits are ERC-20 transfers to the vault, verified from their receipts;
 * withdrawals are transfers signed by the hot wallet's key.
 *
 * Withdrawals from one adapter are sent one at a time so each takes the next nonce. Several
 * processes sending from the same hot wallet may clash on a nonce; the loser gets
 * `send_rejected` (nothing was broadcast), so the caller should send withdrawals from one worker.
 */
export function createEvmChain(config: EvmChainConfig, opts: EvmChainOptions = {}): ChainAdapter {
  const balanceCacheMs = opts.balanceCacheMs ?? 1000;
  const now = opts.now ?? Date.now;
  const chain = defineChain({
    id: config.chainId,
    name: config.name,
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [config.rpcUrl] } },
  });
  // No retries: a caller waiting on the chain waits at most one timeout, and retries are its call.
  const client: PublicClient = createPublicClient({
    chain,
    transport: http(config.rpcUrl, { timeout: config.rpcTimeoutMs, retryCount: 0 }),
    cacheTime: 0,
  });
  const account = privateKeyToAccount(config.hotWalletPrivateKey);
  const hotWallet = lower(account.address);
  const token = config.tokenAddress;
  const vault = config.vaultAddress;
  const required = config.confirmations;

  let tokenChecked: Promise<void> | null = null;
  /** Once per adapter: the RPC serves the configured chain and the token has 6 decimals. */
  function checkToken(): Promise<void> {
    tokenChecked ??= (async () => {
      const [chainId, decimals] = await Promise.all([
        client.getChainId(),
        client.readContract({ address: token, abi: erc20Abi, functionName: 'decimals' }).catch((e: unknown) => {
          if (isTransportFailure(e)) throw e;
          throw new ChainError('misconfigured', `USDC_TOKEN_ADDRESS ${token} does not answer decimals() as an ERC-20`);
        }),
      ]);
      if (chainId !== config.chainId) {
        throw new ChainError('misconfigured', `the RPC serves chain ${chainId}, not CHAIN_ID ${config.chainId}`);
      }
      if (decimals !== TOKEN_DECIMALS) {
        throw new ChainError('misconfigured', `the token has ${decimals} decimals, expected ${TOKEN_DECIMALS}`);
      }
    })().catch((e: unknown) => {
      tokenChecked = null;
      throw e;
    });
    return tokenChecked;
  }

  const tokenBalance = (who: Address): Promise<bigint> =>
    client.readContract({ address: token, abi: erc20Abi, functionName: 'balanceOf', args: [who] });

  async function confirmationsOf(receipt: TransactionReceipt): Promise<number> {
    const head = await client.getBlockNumber({ cacheTime: 0 });
    // A node behind the one that gave the receipt can report a lower head: count that as none.
    return head < receipt.blockNumber ? 0 : Number(head - receipt.blockNumber + 1n);
  }

  async function receiptOrNull(hash: Hex): Promise<TransactionReceipt | null> {
    try {
      return await client.getTransactionReceipt({ hash });
    } catch (e) {
      if (e instanceof TransactionReceiptNotFoundError) return null;
      throw e;
    }
  }

  let balanceCache: { at: number; value: bigint | null } | null = null;
  let balanceInFlight: Promise<bigint | null> | null = null;
  /** Bumped by each withdrawal, so a read that started before it is not cached after it. */
  let balanceGeneration = 0;

  async function onChainAvailable(): Promise<bigint | null> {
    if (balanceCache && now() - balanceCache.at < balanceCacheMs) return balanceCache.value;
    if (balanceInFlight) return balanceInFlight;
    const generation = balanceGeneration;
    balanceInFlight = (async () => {
      let value: bigint | null;
      try {
        await checkToken();
        value = await tokenBalance(hotWallet);
      } catch {
        value = null;
      }
      if (generation === balanceGeneration) balanceCache = { at: now(), value };
      return value;
    })().finally(() => {
      balanceInFlight = null;
    });
    return balanceInFlight;
  }

  async function verifyDeposit(txHashRaw: string, walletRaw: string): Promise<VerifiedDeposit> {
    const txHash = parseTxHash(txHashRaw);
    const wallet = parseAddress(walletRaw, 'wallet');
    return ask(async () => {
      await checkToken();
      const receipt = await receiptOrNull(txHash);
      if (receipt === null) {
        try {
          await client.getTransaction({ hash: txHash });
        } catch (e) {
          if (e instanceof TransactionNotFoundError) {
            throw new ChainError('tx_not_found', `transaction ${txHash} was not found on chain ${config.name}`);
          }
          throw e;
        }
        throw new ChainError('tx_pending', `transaction ${txHash} is not mined yet`);
      }
      if (receipt.status !== 'success') throw new ChainError('tx_reverted', `transaction ${txHash} reverted`);

      // Only the token contract's own Transfer events count; zero-value transfers credit nothing.
      const transfers = parseEventLogs({ abi: erc20Abi, eventName: 'Transfer', logs: receipt.logs, strict: true })
        .filter((l) => l.args.value > 0n)
        .map((l) => ({
          token: lower(l.address),
          from: lower(l.args.from),
          to: lower(l.args.to),
          value: l.args.value,
          logIndex: l.logIndex,
        }));
      const matching = transfers
        .filter((t) => t.token === token && t.from === wallet && t.to === vault)
        .sort((a, b) => a.logIndex - b.logIndex);
      if (matching.length === 0) throw explainNoDeposit(txHash, wallet, transfers);

      const confirmations = await confirmationsOf(receipt);
      if (confirmations < required) {
        throw new ChainError(
          'insufficient_confirmations',
          `transaction ${txHash} has ${confirmations} of ${required} required confirmations`,
          { confirmations, required },
        );
      }
      return {
        amountUnits: matching.reduce((sum, t) => sum + t.value, 0n),
        from: wallet,
        to: vault,
        txHash,
        logIndex: matching[0]!.logIndex,
        logIndexes: matching.map((t) => t.logIndex),
        blockNumber: receipt.blockNumber,
        confirmations,
      };
    });
  }

  function explainNoDeposit(
    txHash: string,
    wallet: Address,
    transfers: readonly { token: Address; from: Address; to: Address }[],
  ): ChainError {
    const list = (xs: Address[]) => [...new Set(xs)].join(', ');
    const usdcToVault = transfers.filter((t) => t.token === token && t.to === vault);
    if (usdcToVault.length > 0) {
      return new ChainError(
        'no_transfer_to_vault',
        `transaction ${txHash} moves USDC to the vault from ${list(usdcToVault.map((t) => t.from))}, not from ${wallet}`,
      );
    }
    const otherToVault = transfers.filter((t) => t.token !== token && t.from === wallet && t.to === vault);
    if (otherToVault.length > 0) {
      return new ChainError(
        'wrong_token',
        `transaction ${txHash} sends token ${list(otherToVault.map((t) => t.token))} to the vault, not USDC ${token}`,
      );
    }
    const usdcFromWallet = transfers.filter((t) => t.token === token && t.from === wallet);
    if (usdcFromWallet.length > 0) {
      return new ChainError(
        'no_transfer_to_vault',
        `transaction ${txHash} sends USDC from ${wallet} to ${list(usdcFromWallet.map((t) => t.to))}, not to the vault ${vault}`,
      );
    }
    return new ChainError('no_transfer_to_vault', `transaction ${txHash} holds no USDC transfer from ${wallet} to the vault ${vault}`);
  }

  let sendQueue: Promise<unknown> = Promise.resolve();

  async function sendWithdrawal(toRaw: string, amountUnits: bigint): Promise<SentWithdrawal> {
    const to = parseAddress(toRaw, 'withdrawal address');
    if (typeof amountUnits !== 'bigint' || amountUnits <= 0n) {
      throw new ChainError('invalid_request', 'withdrawal amount must be a positive number of micro-USDC');
    }
    const run = sendQueue.then(() => sendNow(to, amountUnits));
    sendQueue = run.catch(() => {});
    return run;
  }

  async function sendNow(to: Address, amountUnits: bigint): Promise<SentWithdrawal> {
    balanceGeneration += 1;
    balanceCache = null;
    const data = encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [to, amountUnits] });
    const signed = await ask(async () => {
      await checkToken();
      const balance = await tokenBalance(hotWallet);
      if (balance < amountUnits) {
        throw new ChainError(
          'hot_wallet_insufficient_funds',
          `the hot wallet holds ${balance} micro-USDC, less than the withdrawal of ${amountUnits}`,
        );
      }
      // Everything is filled here rather than by the node, so what is signed is what was checked.
      const [nonce, gasEstimate, fees] = await Promise.all([
        client.getTransactionCount({ address: hotWallet, blockTag: 'pending' }),
        client.estimateGas({ account: hotWallet, to: token, data }).catch((e: unknown) => {
          if (isTransportFailure(e)) throw e;
          throw new ChainError('send_rejected', `the withdrawal transfer would fail: ${shortMessage(e)}`);
        }),
        // null: a chain without EIP-1559 fees, paid with a legacy gas price instead.
        client.estimateFeesPerGas().then(
          (f) => ({ maxFeePerGas: f.maxFeePerGas, maxPriorityFeePerGas: f.maxPriorityFeePerGas }),
          (e: unknown) => {
            if (e instanceof Eip1559FeesNotSupportedError) return null;
            throw e;
          },
        ),
      ]);
      const gas = (gasEstimate * GAS_HEADROOM_PERCENT) / 100n;
      const common = { chainId: config.chainId, nonce, to: token, data, gas };
      const serialized =
        fees === null
          ? await account.signTransaction({ ...common, type: 'legacy', gasPrice: await client.getGasPrice() })
          : await account.signTransaction({ ...common, type: 'eip1559', ...fees });
      return { serialized, nonce };
    });
    // The hash is known before broadcasting, so a broadcast that times out can still be tracked.
    const txHash = keccak256(signed.serialized);
    try {
      await client.sendRawTransaction({ serializedTransaction: signed.serialized });
    } catch (e) {
      if (isTransportFailure(e)) throw unavailable(e, txHash);
      throw new ChainError('send_rejected', `the node refused the withdrawal: ${shortMessage(e)}`);
    }
    balanceGeneration += 1;
    balanceCache = null;
    return { txHash, nonce: signed.nonce };
  }

  async function withdrawalStatus(txHashRaw: string): Promise<WithdrawalStatus> {
    const txHash = parseTxHash(txHashRaw);
    return ask(async () => {
      const receipt = await receiptOrNull(txHash);
      if (receipt === null) return 'pending';
      if (receipt.status !== 'success') return 'failed';
      return (await confirmationsOf(receipt)) >= required ? 'confirmed' : 'pending';
    });
  }

  return { kind: 'evm', name: config.name, onChainAvailable, verifyDeposit, sendWithdrawal, withdrawalStatus };
}
