import type { LedgerType } from '../market.tables.ts';
import { parseAccount } from './ledger.accounts.ts';

export interface MovementEntry {
  readonly account: string;
  /** Signed units: positive credits the account, negative debits it. */
  readonly amount: bigint;
}

export interface Movement {
  readonly type: LedgerType;
  readonly entries: readonly MovementEntry[];
  /** The wallet the movement concerns (shown in its ledger), if any. */
  readonly wallet?: string | null;
  readonly market_id?: number | null;
  readonly trade_id?: number | null;
  readonly tx_hash?: string | null;
  readonly chain?: string | null;
  readonly note?: string | null;
}

/** A movement that cannot be posted: a bug in the caller, never a client error. */
export class LedgerError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'LedgerError';
  }
}

/**
 * Refuses a movement that would break double entry: fewer than two entries, an unknown account,
 * a zero or non-integer amount, or amounts that do not sum to zero.
 */
export function checkMovement(movement: Movement): void {
  const { entries } = movement;
  if (entries.length < 2) throw new LedgerError(`a ${movement.type} movement needs at least two entries`);
  let sum = 0n;
  for (const e of entries) {
    if (parseAccount(e.account) === null) throw new LedgerError(`unknown ledger account ${JSON.stringify(e.account)}`);
    if (typeof e.amount !== 'bigint') throw new LedgerError(`amount of ${e.account} is not a bigint`);
    if (e.amount === 0n) throw new LedgerError(`zero amount on ${e.account}`);
    sum += e.amount;
  }
  if (sum !== 0n) throw new LedgerError(`unbalanced ${movement.type} movement: entries sum to ${sum}`);
}
