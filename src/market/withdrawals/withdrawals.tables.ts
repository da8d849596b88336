import type { ColumnType, Generated } from 'kysely';

type Timestamp = ColumnType<Date, Date | string, Date | string>;

/**
 * pending: amount locked, nothing sent (CHAIN=none: waits for the operator; CHAIN=evm: queued
 * for the sender). sending: CHAIN=evm, claimed by a sender; `tx_hash` once the node was given the
 * transaction (null while the send is in flight, or if the sender died mid-send). completed:
 * ledger `withdraw` posted, amount unlocked. rejected (operator) and failed (nothing left the hot
 * wallet): amount unlocked, no ledger movement.
 */
export type WithdrawalState = 'pending' | 'sending' | 'completed' | 'rejected' | 'failed';

export interface WithdrawalsTable {
  id: Generated<number>;
  wallet: string;
  /** Micro-USDC, > 0; held in wallets.locked while pending or sending. */
  amount: bigint;
  status: WithdrawalState;
  /**
   * The chain the service sends it on (CHAIN_NAME), null when the operator pays it by hand
   * (CHAIN=none); after completion, the chain of the completing transfer.
   */
  chain: string | null;
  tx_hash: string | null;
  /** The hot wallet nonce of the sent transaction (to replace a stuck one). */
  nonce: number | null;
  /** Shown to the user (e.g. why the operator rejected it). */
  note: string | null;
  /** Operator-only: why a send failed or needs attention. */
  error: string | null;
  /** The ledger movement of a completed withdrawal. */
  movement_id: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
  completed_at: Timestamp | null;
}

export interface WithdrawalsTables {
  withdrawals: WithdrawalsTable;
}
