import type { ChainConfig } from '../../config/chain.ts';
import type { ChainAdapter } from './chain-adapter.ts';
import { createEvmChain, type EvmChainOptions } from './evm-chain.ts';
import { createNoneChain } from './none-chain.ts';

/** The adapter CHAIN selects. */
export function createChainAdapter(config: ChainConfig, opts: EvmChainOptions = {}): ChainAdapter {
  return config.kind === 'evm' ? createEvmChain(config, opts) : createNoneChain();
}
