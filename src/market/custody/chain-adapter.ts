/**
 * The boundary between the market's database ledger and a chain holding real USDC.
 *
 * The ledger is the source of truth for balances; the adapter only answers questions about the
 * chain (did this deposit happen? how much can we pay out?) and moves tokens out of the hot
 * wallet. Exactly-once crediting is the caller's job: it records each verified deposit under a
 * unique (chain, tx_hash, log_index), so verifying the same transaction twice is harmless.
 */
export interface ChainAdapter {
  readonly kind: 'none' | 'evm';
  /** The label written in the `chain` field of on-chain ledger entries; null without a chain. */
  readonly name: string | null;

  /**
   * What the service can actually pay out on chain now, in micro-USDC: the hot wallet's token
   * balance. The balance record shows `on_chain_available` = this and
   * `max_withdraw = min(database available, on-chain payable)`. Never throws: null when there is
   * no chain or the chain did not answer within the short RPC timeout, so a balance request
   * never fails because of the chain; with null, max_withdraw is the database amount alone.
   */
  onChainAvailable(): Promise<bigint | null>;

  /**
   * Checks that `txHash` moved the configured token from `wallet` to the vault, succeeded and
   * has enough confirmations. Throws ChainError saying exactly why not.
   */
  verifyDeposit(txHash: string, wallet: string): Promise<VerifiedDeposit>;

  /**
   * Signs and broadcasts a token transfer of `amountUnits` micro-USDC from the hot wallet to
   * `to`. Resolves once the node accepted the transaction (not once it is mined): poll
   * withdrawalStatus. On a transport failure after signing the error carries the `txHash`,
   * because the transaction may still have been broadcast and must not be paid twice.
   */
  sendWithdrawal(to: string, amountUnits: bigint): Promise<SentWithdrawal>;

  /**
   * `confirmed`: mined, succeeded, enough confirmations. `failed`: mined and reverted.
   * `pending`: otherwise, including a transaction the node does not know (yet, or any more):
   * a signed transaction can still be mined later, so it is never declared failed on absence.
   */
  withdrawalStatus(txHash: string): Promise<WithdrawalStatus>;
}

export interface VerifiedDeposit {
  /** Micro-USDC (the token has 6 decimals); the sum when one transaction holds several transfers. */
  readonly amountUnits: bigint;
  /** Lower-case addresses. */
  readonly from: string;
  readonly to: string;
  readonly txHash: string;
  /**
   * The lowest matching log index: with the chain name and tx hash, the deposit's unique key.
   * The same transaction always yields the same index.
   */
  readonly logIndex: number;
  /** Every matching Transfer log, ascending; `amountUnits` is their sum. */
  readonly logIndexes: readonly number[];
  readonly blockNumber: bigint;
  readonly confirmations: number;
}

export interface SentWithdrawal {
  readonly txHash: string;
  /** The hot wallet's nonce the transaction used; an operator needs it to replace a stuck one. */
  readonly nonce: number;
}

export type WithdrawalStatus = 'pending' | 'confirmed' | 'failed';

export type ChainErrorCode =
  /** The RPC did not answer, answered too slowly or with a server error (maps to 503). */
  | 'chain_unavailable'
  /** CHAIN=none: deposits and withdrawals go through the operator. */
  | 'chain_disabled'
  /** A malformed tx hash, wallet or amount. */
  | 'invalid_request'
  /** The configured token is not what it should be (e.g. not 6 decimals). */
  | 'misconfigured'
  | 'tx_not_found'
  /** Known to the node but not mined yet. */
  | 'tx_pending'
  /** Mined, but fewer confirmations than required; `confirmations` and `required` say how many. */
  | 'insufficient_confirmations'
  | 'tx_reverted'
  /** No transfer of the configured token from the wallet to the vault in the transaction. */
  | 'no_transfer_to_vault'
  /** The wallet sent a token to the vault, but not the configured one. */
  | 'wrong_token'
  /** The hot wallet holds less of the token than the withdrawal. */
  | 'hot_wallet_insufficient_funds'
  /** The node refused the transaction (no gas money, nonce clash, would revert). Not broadcast. */
  | 'send_rejected';

export class ChainError extends Error {
  constructor(
    readonly code: ChainErrorCode,
    message: string,
    readonly details: {
      readonly confirmations?: number;
      readonly required?: number;
      /** Set when a withdrawal was signed and may have been broadcast despite the error. */
      readonly txHash?: string;
    } = {},
  ) {
    super(message);
    this.name = 'ChainError';
  }
}
