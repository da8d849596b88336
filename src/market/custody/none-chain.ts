import { ChainError, type ChainAdapter } from './chain-adapter.ts';

const disabled = (): never => {
  throw new ChainError('chain_disabled', 'no chain is configured; deposits and withdrawals are handled by the operator');
};

/** CHAIN=none: nothing on chain; the operator credits deposits and completes withdrawals. */
export function createNoneChain(): ChainAdapter {
  return {
    kind: 'none',
    name: null,
    onChainAvailable: async () => null,
    verifyDeposit: async () => disabled(),
    sendWithdrawal: async () => disabled(),
    withdrawalStatus: async () => disabled(),
  };
}
