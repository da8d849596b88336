import type { ChainConfig } from '../../config/chain.ts';
import type { ChainAdapter } from './chain-adapter.ts';
import type { EvmChainOptions } from './evm-chain.ts';
import { createNoneChain } from './none-chain.ts';

/** The adapter CHAIN selects; the EVM one (and viem with it) is loaded only when chosen. */
export async function createChainAdapter(config: ChainConfig, opts: EvmChainOptions = {}): Promise<ChainAdapter> {
  if (config.kind !== 'evm') return createNoneChain();
  const { createEvmChain } = await import('./evm-chain.ts');
  return createEvmChain(config, opts);
}
