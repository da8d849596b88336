import { createRequire } from 'node:module';

/**
 * viem (some 20 MB of resident memory) only when a chain setting is given: loadConfig is
 * synchronous, so it is required here rather than imported at start.
 */
const viem = () => createRequire(import.meta.url)('viem') as typeof import('viem');
const viemAccounts = () => createRequire(import.meta.url)('viem/accounts') as typeof import('viem/accounts');
import { ConfigError } from './config-error.ts';

/** No chain: the operator credits deposits and completes withdrawals by hand. */
export interface NoneChainConfig {
  readonly kind: 'none';
}

/** An EVM chain reached over JSON-RPC, holding a USDC-like ERC-20 with 6 decimals. */
export interface EvmChainConfig {
  readonly kind: 'evm';
  /** Label written in the `chain` field of on-chain ledger entries. */
  readonly name: string;
  readonly rpcUrl: string;
  readonly chainId: number;
  readonly tokenAddress: `0x${string}`;
  /** Where users send deposits. */
  readonly vaultAddress: `0x${string}`;
  /** The key of the hot wallet that pays withdrawals. Never log it. */
  readonly hotWalletPrivateKey: `0x${string}`;
  /** Blocks on top of and including a transaction's block before it counts (1 = mined). */
  readonly confirmations: number;
  /** Bound of every RPC call, short so a balance answer never waits on a slow node. */
  readonly rpcTimeoutMs: number;
}

export type ChainConfig = NoneChainConfig | EvmChainConfig;

type Env = NodeJS.ProcessEnv;

const NAME = /^[a-z0-9][a-z0-9_-]{0,31}$/;
const PRIVATE_KEY = /^0x[0-9a-fA-F]{64}$/;

function value(env: Env, key: string): string | undefined {
  const v = env[key]?.trim();
  return v === undefined || v === '' ? undefined : v;
}

function required(env: Env, key: string): string {
  const v = value(env, key);
  if (v === undefined) throw new ConfigError(key, 'required when CHAIN=evm');
  return v;
}

function wholeNumber(env: Env, key: string, def: number | undefined, min: number, max: number): number {
  const raw = def === undefined ? required(env, key) : value(env, key);
  if (raw === undefined) return def!;
  if (!/^\d+$/.test(raw)) throw new ConfigError(key, `expected a whole number, got ${JSON.stringify(raw)}`);
  const n = Number(raw);
  if (n < min || n > max) throw new ConfigError(key, `must be between ${min} and ${max}, got ${n}`);
  return n;
}

function address(env: Env, key: string): `0x${string}` {
  const raw = required(env, key);
  // Mixed case must be a valid EIP-55 checksum: a typo in a mixed-case address is caught here.
  if (!viem().isAddress(raw)) throw new ConfigError(key, `not a valid address (0x + 40 hex digits, correct checksum if mixed case): ${raw}`);
  return raw.toLowerCase() as `0x${string}`;
}

function privateKey(env: Env, key: string): `0x${string}` {
  const raw = required(env, key);
  const withPrefix = raw.startsWith('0x') ? raw : `0x${raw}`;
  // The reasons never echo the value: it is a secret.
  if (!PRIVATE_KEY.test(withPrefix)) throw new ConfigError(key, 'expected 32 bytes as 64 hex digits (optionally 0x-prefixed)');
  try {
    viemAccounts().privateKeyToAddress(withPrefix as `0x${string}`);
  } catch {
    throw new ConfigError(key, 'not a valid secp256k1 private key');
  }
  return withPrefix.toLowerCase() as `0x${string}`;
}

function rpcUrl(env: Env, key: string): string {
  const raw = required(env, key);
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw new ConfigError(key, 'not a valid URL');
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new ConfigError(key, 'expected an http or https URL');
  return raw;
}

/** Reads the CHAIN_* settings. Throws ConfigError naming the first bad key. */
export function loadChainConfig(env: Env): ChainConfig {
  const kind = value(env, 'CHAIN') ?? 'none';
  if (kind === 'none') return Object.freeze({ kind: 'none' });
  if (kind !== 'evm') throw new ConfigError('CHAIN', `expected none or evm, got ${JSON.stringify(kind)}`);
  const name = value(env, 'CHAIN_NAME') ?? 'evm';
  if (!NAME.test(name)) {
    throw new ConfigError('CHAIN_NAME', 'expected 1-32 lower-case letters, digits, - or _, starting with a letter or digit');
  }
  return Object.freeze({
    kind: 'evm',
    name,
    rpcUrl: rpcUrl(env, 'CHAIN_RPC_URL'),
    chainId: wholeNumber(env, 'CHAIN_ID', undefined, 1, Number.MAX_SAFE_INTEGER),
    tokenAddress: address(env, 'USDC_TOKEN_ADDRESS'),
    vaultAddress: address(env, 'VAULT_ADDRESS'),
    hotWalletPrivateKey: privateKey(env, 'HOT_WALLET_PRIVATE_KEY'),
    confirmations: wholeNumber(env, 'CHAIN_CONFIRMATIONS', 1, 1, 10_000),
    rpcTimeoutMs: wholeNumber(env, 'CHAIN_RPC_TIMEOUT_MS', 2000, 50, 60_000),
  });
}
