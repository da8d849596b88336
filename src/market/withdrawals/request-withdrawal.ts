import type { Transaction } from 'kysely';
import { badRequest } from '../../shared/errors.ts';
import type { Database } from '../../storage/schema.ts';
import { usdcText } from '../pricing/index.ts';
import { lockFunds } from '../wallets/locked-funds.ts';
import { availableOf, lockWallet, type WalletRow } from '../wallets/wallets.repository.ts';
import type { WithdrawalRow } from './withdrawals.repository.ts';

export interface RequestWithdrawalInput {
  /** Normalized (lower case). */
  readonly wallet: string;
  /** Micro-USDC, > 0 (parsed by parseUsdcAmount). */
  readonly amount: bigint;
  /** The chain the service will send it on; null when the operator pays it (CHAIN=none). */
  readonly chain: string | null;
  /** What the hot wallet can pay now; null when unknown (no chain, or the chain is down). */
  readonly onChainAvailable: bigint | null;
  readonly minUnits: bigint;
  readonly at: Date;
}

/** `min(available, on-chain payable)`, or available alone when the chain amount is unknown. */
export function maxWithdrawOf(available: bigint, onChainAvailable: bigint | null): bigint {
  const max = onChainAvailable !== null && onChainAvailable < available ? onChainAvailable : available;
  return max < 0n ? 0n : max;
}

/**
 * Opens a withdrawal in the caller's transaction: checks the minimum, then, with the wallet row
 * locked, `amount <= available` (400 `Insufficient balance`) and `amount <= max_withdraw`; moves
 * the amount into `wallets.locked` and writes the `pending` row. Nothing leaves the balance
 * until the withdrawal completes.
 */
export async function requestWithdrawal(
  trx: Transaction<Database>,
  input: RequestWithdrawalInput,
): Promise<{ readonly withdrawal: WithdrawalRow; readonly wallet: WalletRow }> {
  if (input.amount < input.minUnits) throw badRequest(`Minimum withdrawal is ${usdcText(input.minUnits)} USDC`);
  const w = await lockWallet(trx, input.wallet);
  const available = w ? availableOf(w) : 0n;
  // More than the wallet has is the market API's `Insufficient balance`; within it but more than
  // the hot wallet can pay now (max_withdraw below available) names the limit.
  if (!w || input.amount > available) throw badRequest('Insufficient balance');
  const max = maxWithdrawOf(available, input.onChainAvailable);
  if (input.amount > max) throw badRequest(`Amount exceeds max_withdraw (${usdcText(max)} USDC)`);
  await lockFunds(trx, input.wallet, input.amount, input.at);
  const withdrawal = await trx
    .insertInto('withdrawals')
    .values({
      wallet: input.wallet,
      amount: input.amount,
      status: 'pending',
      chain: input.chain,
      created_at: input.at,
      updated_at: input.at,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  return { withdrawal, wallet: (await lockWallet(trx, input.wallet))! };
}
