import { HttpError } from '../../shared/errors.ts';
import { ChainError, type ChainErrorCode } from './chain-adapter.ts';

/** Answers that tell the client nothing about the service's own wallet or settings. */
const HIDDEN: Partial<Record<ChainErrorCode, { status: number; message: string }>> = {
  chain_unavailable: { status: 503, message: 'Chain unavailable, try again later' },
  misconfigured: { status: 503, message: 'Chain unavailable, try again later' },
  hot_wallet_insufficient_funds: { status: 503, message: 'Withdrawals are temporarily unavailable, try again later' },
  send_rejected: { status: 503, message: 'Withdrawal could not be sent, try again later' },
};

/**
 * The HTTP answer of a ChainError (statuses of docs/chain-custody.md): 503 with `retry-after`
 * when the service's side failed, 400 with the adapter's explanation when the client's
 * transaction is the problem (not found, pending, too few confirmations, reverted, not a USDC
 * transfer from that wallet to the vault). Anything else is rethrown as it is.
 */
export function chainHttpError(e: unknown): unknown {
  if (!(e instanceof ChainError)) return e;
  const hidden = HIDDEN[e.code];
  if (hidden) return new HttpError(hidden.status, hidden.message, { 'retry-after': '5' });
  return new HttpError(400, e.message.charAt(0).toUpperCase() + e.message.slice(1));
}
