import type { Transaction } from 'kysely';
import { conflict } from '../../shared/errors.ts';
import type { Database } from '../../storage/schema.ts';
import type { VerifiedDeposit } from '../custody/chain-adapter.ts';
import { creditWallet } from '../wallets/deposit.ts';
import type { WalletRow } from '../wallets/wallets.repository.ts';

export interface CreditedDeposit {
  readonly chain: string;
  readonly tx_hash: string;
  readonly log_index: number;
  readonly wallet: string;
  readonly amount: bigint;
  readonly block_number: bigint;
  readonly movement_id: string;
  readonly created_at: Date;
}

/**
 * Credits a verified on-chain deposit exactly once, in the caller's transaction: the ledger
 * `deposit` (with the tx hash and chain), then the transfer's key (chain, tx_hash, log_index). A
 * key already there is 409 `Deposit already credited`, and the caller's rollback takes the credit
 * back with it.
 */
export async function creditChainDeposit(
  trx: Transaction<Database>,
  input: { readonly chain: string; readonly wallet: string; readonly deposit: VerifiedDeposit; readonly at: Date },
): Promise<{ readonly deposit: CreditedDeposit; readonly wallet: WalletRow }> {
  const { deposit, at } = input;
  const txHash = deposit.txHash.toLowerCase();
  const wallet = await creditWallet(
    trx,
    { wallet: input.wallet, amount: deposit.amountUnits, tx_hash: txHash, chain: input.chain, note: `on-chain deposit ${txHash}` },
    at,
  );
  // The transfer's key: a second claim conflicts here (one racing the first waits for its commit
  // and then conflicts) and the whole transaction, credit included, rolls back.
  const recorded = await trx
    .insertInto('chain_deposits')
    .values({
      chain: input.chain,
      tx_hash: txHash,
      log_index: deposit.logIndex,
      wallet: input.wallet,
      amount: deposit.amountUnits,
      block_number: deposit.blockNumber,
      movement_id: wallet.movement_id,
      created_at: at,
    })
    .onConflict((oc) => oc.columns(['chain', 'tx_hash', 'log_index']).doNothing())
    .returning('log_index')
    .executeTakeFirst();
  if (!recorded) throw conflict('Deposit already credited');
  return {
    deposit: {
      chain: input.chain,
      tx_hash: txHash,
      log_index: deposit.logIndex,
      wallet: input.wallet,
      amount: deposit.amountUnits,
      block_number: deposit.blockNumber,
      movement_id: wallet.movement_id,
      created_at: at,
    },
    wallet,
  };
}
