import { formatUsdc } from '../pricing/index.ts';
import type { WalletRow } from './wallets.repository.ts';

/** The Balance record of the market API, amounts in USDC. */
export interface BalanceRecord {
  readonly wallet_addr: string;
  readonly balance: number;
  readonly locked: number;
  readonly total_deposited: number;
  readonly total_withdrawn: number;
  readonly available: number;
  readonly max_withdraw: number;
  readonly on_chain_available: number | null;
}

/**
 * A wallet's balance record. Without a chain reading (`onChainAvailable` null) max_withdraw is
 * the database's available amount; with one it is the smaller of the two.
 */
export function toBalanceRecord(w: Pick<WalletRow, 'address' | 'balance' | 'locked' | 'total_deposited' | 'total_withdrawn'>, onChainAvailable: bigint | null = null): BalanceRecord {
  const available = w.balance - w.locked;
  const max = onChainAvailable !== null && onChainAvailable < available ? onChainAvailable : available;
  return {
    wallet_addr: w.address,
    balance: formatUsdc(w.balance),
    locked: formatUsdc(w.locked),
    total_deposited: formatUsdc(w.total_deposited),
    total_withdrawn: formatUsdc(w.total_withdrawn),
    available: formatUsdc(available),
    max_withdraw: formatUsdc(max < 0n ? 0n : max),
    on_chain_available: onChainAvailable === null ? null : formatUsdc(onChainAvailable),
  };
}
