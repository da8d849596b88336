import { type OutcomeRecord, recordOutcomes } from './market-pools.ts';
import type { TradeQuote } from './quote-trade.ts';
import { type SettlementPosition, settleMarket } from './settle-market.ts';

/** What a quoted stake would receive if its outcome won now (docs/pool-arithmetic.md, "Resolution"). */
export interface PayoutIfWon {
  /** stake + floor(D * shares / H), with this stake and its shares added to the market. */
  readonly payout: bigint;
  /** payout - stake. */
  readonly profit: bigint;
  /** The fee the resolution would take from the losing pools. */
  readonly fee: bigint;
}

const NEW = Symbol('this stake');

/**
 * Resolves the market, as it would be after the quoted trade, to the quote's outcome with
 * `settleMarket` itself, so the estimate pays exactly what settlement would. Settlement needs
 * only each outcome's stakes and shares, not who holds them: everyone else on an outcome is one
 * position (P[o], H[o]) and this stake is another. The floor of D * shares / H is the same
 * whichever way the other holders are grouped. `sharesHeld` is H[o] before the trade.
 */
export function payoutIfWon(quote: TradeQuote, sharesHeld: OutcomeRecord<bigint>): PayoutIfWon {
  const after = quote.poolsAfter;
  const positions: SettlementPosition<symbol | string>[] = recordOutcomes(after).map((o) => ({
    id: o,
    outcome: o,
    stake: after[o]!.real - (o === quote.outcome ? quote.stake : 0n),
    shares: sharesHeld[o] ?? 0n,
  }));
  positions.push({ id: NEW, outcome: quote.outcome, stake: quote.stake, shares: quote.shares });
  const s = settleMarket(after, positions, quote.outcome);
  const mine = s.payouts.find((p) => p.id === NEW)!;
  return { payout: mine.amount, profit: mine.amount - quote.stake, fee: s.fee };
}
