import type { Kysely } from 'kysely';
import type { Clock } from '../../shared/clock.ts';
import { badRequest } from '../../shared/errors.ts';
import type { Database } from '../../storage/schema.ts';
import { EXTERNAL_ACCOUNT, walletAccount } from '../ledger/ledger.accounts.ts';
import { postMovement } from '../ledger/post-movement.ts';
import { inTransaction } from '../market-transaction.ts';
import { getOrCreateWallet, lockWallet, type WalletRow } from './wallets.repository.ts';
import { normalizeWalletAddress } from './wallet-address.ts';

export interface DepositInput {
  readonly wallet: string;
  /** Units (micro-USDC), > 0. */
  readonly amount: bigint;
  readonly note?: string | null;
  /** The on-chain transfer, when the deposit came from one. */
  readonly tx_hash?: string | null;
  readonly chain?: string | null;
}

/**
 * Credits a wallet (created if new) with money that entered the service: ledger `deposit` from
 * `external`. Returns the wallet after the credit.
 */
export async function depositToWallet(db: Kysely<Database>, clock: Clock, input: DepositInput): Promise<WalletRow> {
  const wallet = normalizeWalletAddress(input.wallet);
  if (input.amount <= 0n) throw badRequest('invalid amount: must be greater than 0');
  return inTransaction(db, async (trx) => {
    const at = new Date(clock.now());
    await getOrCreateWallet(trx, wallet, at);
    await lockWallet(trx, wallet);
    await postMovement(trx, {
      type: 'deposit',
      entries: [
        { account: EXTERNAL_ACCOUNT, amount: -input.amount },
        { account: walletAccount(wallet), amount: input.amount },
      ],
      wallet,
      tx_hash: input.tx_hash ?? null,
      chain: input.chain ?? null,
      note: input.note ?? null,
      at,
    });
    return (await lockWallet(trx, wallet))!;
  });
}
