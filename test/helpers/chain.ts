import { readFileSync } from 'node:fs';
import ganache from 'ganache';
import solc from 'solc';
import {
  createPublicClient,
  createWalletClient,
  defineChain,
  http,
  type Abi,
  type Hex,
  type PublicClient,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import type { EvmChainConfig } from '../../src/config/chain.ts';

type Address = `0x${string}`;

export interface TestWallet {
  readonly address: Address;
  readonly privateKey: Hex;
}

export interface TestChain {
  readonly rpcUrl: string;
  readonly chainId: number;
  /** The USDC-like token the adapter is configured with. */
  readonly usdc: Address;
  /** A second token of the same contract, to send the wrong token. */
  readonly otherToken: Address;
  readonly vault: Address;
  readonly hotWallet: TestWallet;
  /** Funded with gas money and 1,000 of each token. */
  readonly depositors: readonly TestWallet[];
  /** An adapter configuration for this chain (1 confirmation, 10 s timeout); overrides apply. */
  config(overrides?: Partial<EvmChainConfig>): EvmChainConfig;
  readonly client: PublicClient;
  /** Sends `amount` units of `token` from `from` to `to`; returns the hash (mined at once unless paused). */
  transfer(token: Address, from: TestWallet, to: Address, amount: bigint, opts?: { gas?: bigint }): Promise<Hex>;
  /** Several transfers of `token` in one transaction, in the order given. */
  transferMany(token: Address, from: TestWallet, transfers: readonly (readonly [Address, bigint])[]): Promise<Hex>;
  balanceOf(token: Address, who: Address): Promise<bigint>;
  mine(blocks: number): Promise<void>;
  /** While paused, sent transactions wait in the pool. */
  pauseMining(): Promise<void>;
  resumeMining(): Promise<void>;
  close(): Promise<void>;
}

export const CHAIN_ID = 1337;
/** Units of 6-decimal tokens minted to each depositor and to the hot wallet. */
export const MINTED = 1_000_000_000n;

interface Compiled {
  readonly abi: Abi;
  readonly bytecode: Hex;
}

let compiled: Compiled | null = null;

/** Compiles the fixture token once per process with the bundled solc (no download). */
function compileTestToken(): Compiled {
  if (compiled) return compiled;
  const source = readFileSync(new URL('../fixtures/TestUSDC.sol', import.meta.url), 'utf8');
  const input = {
    language: 'Solidity',
    sources: { 'TestUSDC.sol': { content: source } },
    settings: {
      // ganache 7 implements up to Shanghai; newer default targets use opcodes it lacks.
      evmVersion: 'shanghai',
      optimizer: { enabled: true, runs: 200 },
      outputSelection: { '*': { TestUSDC: ['abi', 'evm.bytecode.object'] } },
    },
  };
  const output = JSON.parse(solc.compile(JSON.stringify(input))) as {
    errors?: { severity: string; formattedMessage: string }[];
    contracts?: Record<string, Record<string, { abi: Abi; evm: { bytecode: { object: string } } }>>;
  };
  const errors = (output.errors ?? []).filter((e) => e.severity === 'error');
  if (errors.length > 0) throw new Error(`TestUSDC.sol does not compile:\n${errors.map((e) => e.formattedMessage).join('\n')}`);
  const contract = output.contracts?.['TestUSDC.sol']?.TestUSDC;
  if (!contract) throw new Error('solc produced no TestUSDC contract');
  compiled = { abi: contract.abi, bytecode: `0x${contract.evm.bytecode.object}` };
  return compiled;
}

/**
 * A real local chain for one test file: ganache on 127.0.0.1 (port 0, deterministic accounts,
 * every transaction mined at once), with two fixture tokens deployed and minted.
 */
export async function startTestChain(): Promise<TestChain> {
  const token = compileTestToken();
  const server = ganache.server({
    logging: { quiet: true },
    wallet: { deterministic: true, totalAccounts: 6 },
    chain: { chainId: CHAIN_ID },
    miner: { instamine: 'eager' },
  });
  await server.listen(0, '127.0.0.1');
  try {
    const address = server.address();
    const rpcUrl = `http://127.0.0.1:${address.port}`;
    const accounts = Object.entries(server.provider.getInitialAccounts()).map(
      ([addr, a]): TestWallet => ({ address: addr.toLowerCase() as Address, privateKey: a.secretKey as Hex }),
    );
    const [owner, hotWallet, d1, d2, d3, vaultAccount] = accounts as [TestWallet, TestWallet, TestWallet, TestWallet, TestWallet, TestWallet];
    const chain = defineChain({
      id: CHAIN_ID,
      name: 'ganache',
      nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
      rpcUrls: { default: { http: [rpcUrl] } },
    });
    const transport = http(rpcUrl, { retryCount: 0 });
    const client = createPublicClient({ chain, transport, cacheTime: 0 });
    const walletOf = (w: TestWallet) => createWalletClient({ account: privateKeyToAccount(w.privateKey), chain, transport });

    async function mined(hash: Hex): Promise<void> {
      const receipt = await client.getTransactionReceipt({ hash });
      if (receipt.status !== 'success') throw new Error(`setup transaction ${hash} reverted`);
    }

    async function deploy(name: string, symbol: string): Promise<Address> {
      const hash = await walletOf(owner).deployContract({ abi: token.abi, bytecode: token.bytecode, args: [name, symbol] });
      const receipt = await client.getTransactionReceipt({ hash });
      if (!receipt.contractAddress) throw new Error(`deploying ${symbol} failed`);
      return receipt.contractAddress.toLowerCase() as Address;
    }

    const usdc = await deploy('Test USD Coin', 'USDC');
    const otherToken = await deploy('Other Dollar', 'ODD');
    const depositors = [d1, d2, d3];
    for (const t of [usdc, otherToken]) {
      for (const w of [hotWallet, ...depositors]) {
        await mined(await walletOf(owner).writeContract({ address: t, abi: token.abi, functionName: 'mint', args: [w.address, MINTED] }));
      }
    }

    const rpc = (method: string, params: unknown[] = []) =>
      (client.request as (a: { method: string; params: unknown[] }) => Promise<unknown>)({ method, params });

    return {
      rpcUrl,
      chainId: CHAIN_ID,
      usdc,
      otherToken,
      vault: vaultAccount.address,
      hotWallet,
      depositors,
      client,
      config: (overrides = {}) =>
        Object.freeze({
          kind: 'evm',
          name: 'ganache',
          rpcUrl,
          chainId: CHAIN_ID,
          tokenAddress: usdc,
          vaultAddress: vaultAccount.address,
          hotWalletPrivateKey: hotWallet.privateKey,
          confirmations: 1,
          // Not the service's 2 s: on a loaded machine the in-process chain took longer than that to
          // answer and a test saw 503 (a test of the timeout sets its own).
          rpcTimeoutMs: 10_000,
          ...overrides,
        }),
      async transfer(t, from, to, amount, opts = {}) {
        return walletOf(from).writeContract({
          address: t,
          abi: token.abi,
          functionName: 'transfer',
          args: [to, amount],
          // A given gas limit skips estimation, so a transfer that will revert is still sent.
          ...(opts.gas === undefined ? {} : { gas: opts.gas }),
        });
      },
      async transferMany(t, from, transfers) {
        return walletOf(from).writeContract({
          address: t,
          abi: token.abi,
          functionName: 'transferMany',
          args: [transfers.map(([to]) => to), transfers.map(([, v]) => v)],
        });
      },
      async balanceOf(t, who) {
        return (await client.readContract({ address: t, abi: token.abi, functionName: 'balanceOf', args: [who] })) as bigint;
      },
      async mine(blocks) {
        await rpc('evm_mine', [{ blocks }]);
      },
      async pauseMining() {
        await rpc('miner_stop');
      },
      async resumeMining() {
        await rpc('miner_start');
      },
      close: () => server.close(),
    };
  } catch (e) {
    await server.close();
    throw e;
  }
}
