import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadChainConfig } from './chain.ts';
import { ConfigError } from './config-error.ts';
import { loadConfig } from './index.ts';

// Hardhat's well-known first test account: a public key pair, not a secret.
const KEY = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';
const TOKEN = '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48';
const VAULT = '0x70997970c51812dc3a010c7d01b50e0d17dc79c8';

const evm = (extra: Record<string, string> = {}): NodeJS.ProcessEnv => ({
  CHAIN: 'evm',
  CHAIN_RPC_URL: 'http://127.0.0.1:8545',
  CHAIN_ID: '8453',
  USDC_TOKEN_ADDRESS: TOKEN,
  VAULT_ADDRESS: VAULT,
  HOT_WALLET_PRIVATE_KEY: KEY,
  ...extra,
});

function refusal(env: NodeJS.ProcessEnv): ConfigError {
  try {
    loadChainConfig(env);
  } catch (e) {
    assert.ok(e instanceof ConfigError, String(e));
    return e;
  }
  assert.fail('expected a ConfigError');
}

describe('chain configuration', () => {
  it('defaults to no chain', () => {
    assert.deepEqual(loadChainConfig({}), { kind: 'none' });
    assert.deepEqual(loadChainConfig({ CHAIN: 'none', CHAIN_RPC_URL: 'not looked at' }), { kind: 'none' });
    assert.deepEqual(loadConfig({}).chain, { kind: 'none' });
  });

  it('reads an EVM chain with its defaults, frozen, addresses in lower case', () => {
    const c = loadChainConfig(evm());
    assert.deepEqual(c, {
      kind: 'evm',
      name: 'evm',
      rpcUrl: 'http://127.0.0.1:8545',
      chainId: 8453,
      tokenAddress: TOKEN.toLowerCase(),
      vaultAddress: VAULT,
      hotWalletPrivateKey: KEY,
      confirmations: 1,
      rpcTimeoutMs: 2000,
    });
    assert.ok(Object.isFrozen(c));
    const d = loadChainConfig(evm({ CHAIN_NAME: 'base', CHAIN_CONFIRMATIONS: '12', CHAIN_RPC_TIMEOUT_MS: '750', HOT_WALLET_PRIVATE_KEY: KEY.slice(2).toUpperCase() }));
    assert.ok(d.kind === 'evm');
    assert.deepEqual([d.name, d.confirmations, d.rpcTimeoutMs, d.hotWalletPrivateKey], ['base', 12, 750, KEY]);
    assert.equal(loadConfig(evm()).chain.kind, 'evm');
  });

  it('names the missing key when CHAIN=evm', () => {
    for (const key of ['CHAIN_RPC_URL', 'CHAIN_ID', 'USDC_TOKEN_ADDRESS', 'VAULT_ADDRESS', 'HOT_WALLET_PRIVATE_KEY']) {
      const e = refusal(evm({ [key]: '' }));
      assert.equal(e.key, key);
      assert.match(e.reason, /required when CHAIN=evm/);
    }
  });

  it('names the key of a bad value', () => {
    const cases: [Record<string, string>, string][] = [
      [{ CHAIN: 'solana' }, 'CHAIN'],
      [{ CHAIN_NAME: 'Base Mainnet' }, 'CHAIN_NAME'],
      [{ CHAIN_RPC_URL: 'localhost:8545' }, 'CHAIN_RPC_URL'],
      [{ CHAIN_RPC_URL: 'ws://127.0.0.1:8545' }, 'CHAIN_RPC_URL'],
      [{ CHAIN_ID: 'base' }, 'CHAIN_ID'],
      [{ CHAIN_ID: '0' }, 'CHAIN_ID'],
      [{ USDC_TOKEN_ADDRESS: '0x1234' }, 'USDC_TOKEN_ADDRESS'],
      // One letter's case changed: a mixed-case address with a broken checksum.
      [{ USDC_TOKEN_ADDRESS: TOKEN.replace('A0b', 'a0b') }, 'USDC_TOKEN_ADDRESS'],
      [{ VAULT_ADDRESS: 'vault' }, 'VAULT_ADDRESS'],
      [{ HOT_WALLET_PRIVATE_KEY: '0x1234' }, 'HOT_WALLET_PRIVATE_KEY'],
      [{ HOT_WALLET_PRIVATE_KEY: `0x${'0'.repeat(64)}` }, 'HOT_WALLET_PRIVATE_KEY'],
      [{ HOT_WALLET_PRIVATE_KEY: `0x${'f'.repeat(64)}` }, 'HOT_WALLET_PRIVATE_KEY'],
      [{ CHAIN_CONFIRMATIONS: '0' }, 'CHAIN_CONFIRMATIONS'],
      [{ CHAIN_CONFIRMATIONS: 'two' }, 'CHAIN_CONFIRMATIONS'],
      [{ CHAIN_RPC_TIMEOUT_MS: '1.5' }, 'CHAIN_RPC_TIMEOUT_MS'],
    ];
    for (const [extra, key] of cases) assert.equal(refusal(evm(extra)).key, key, JSON.stringify(extra));
    assert.throws(() => loadConfig(evm({ CHAIN_ID: 'x' })), (e) => e instanceof ConfigError && e.key === 'CHAIN_ID');
  });

  it('never repeats the private key in an error', () => {
    const bad = `0x${'f'.repeat(64)}`;
    const e = refusal(evm({ HOT_WALLET_PRIVATE_KEY: bad }));
    assert.ok(!e.message.includes('f'.repeat(64)));
    const short = `0x${'9'.repeat(62)}`;
    assert.ok(!refusal(evm({ HOT_WALLET_PRIVATE_KEY: short })).message.includes('9'.repeat(62)));
  });
});
