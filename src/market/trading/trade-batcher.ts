import type { Clock } from '../../shared/clock.ts';
import type { Db } from '../../storage/database.ts';
import type { StoredAnswer } from '../auth/idempotency.ts';
import { inTransaction } from '../market-transaction.ts';
import { type CommittedTrade, keyId, MarketBusy, placeTradesIn, RetryAlone, type TradeRequest, type TradeSettled } from './place-trades.ts';

/**
 * Group commit of trades: trades that arrive while the previous batch is being written (or in
 * the same turn of the event loop) are placed together, whatever their markets, in one
 * transaction by placeTradesIn; each caller is answered only after that transaction committed.
 * One batch is written at a time, so a busy service commits once per batch rather than once per
 * trade (a transaction's begin, locks, statement planning and commit cost far more than a trade's
 * rows), and no two of its batches wait for each other's row locks.
 *
 * The batch skips markets another transaction holds locked (a settlement, an admin edit): their
 * trades go to a queue of that market, whose batches wait for the lock, one at a time, while the
 * other markets trade on. A market's later trades join its queue while it has one, rather than
 * trying the lock again in every batch.
 */
export interface TradeBatcher {
  /** Places one trade; resolves with its answer (possibly a replayed one) after the commit, or rejects with its refusal. */
  place(request: TradeRequest): Promise<StoredAnswer & { readonly replayed: boolean }>;
}

export interface TradeBatcherOptions {
  readonly db: Db;
  readonly clock: Clock;
  /** Largest batch (the statement's arrays stay small). */
  readonly maxBatch?: number;
  /** Called with the trades of each committed batch, before their callers are answered. */
  readonly onCommitted?: (trades: readonly CommittedTrade[]) => void;
}

interface Pending {
  readonly request: TradeRequest;
  resolve(answer: StoredAnswer & { readonly replayed: boolean }): void;
  reject(error: unknown): void;
}

/** A queue whose batches are written one at a time by `write`. */
class Lane {
  #pending: Pending[] = [];
  #busy = false;
  #scheduled = false;

  constructor(
    private readonly write: (batch: readonly Pending[]) => Promise<void>,
    private readonly maxBatch: number,
    private readonly onIdle: () => void = () => {},
  ) {}

  push(p: Pending): void {
    this.#pending.push(p);
    this.#schedule();
  }

  #schedule(): void {
    if (this.#busy || this.#scheduled) return;
    if (this.#pending.length === 0) return this.onIdle();
    this.#scheduled = true;
    // After the current I/O callbacks: trades that arrived together are placed together.
    setImmediate(() => {
      this.#scheduled = false;
      void this.#flush();
    });
  }

  async #flush(): Promise<void> {
    this.#busy = true;
    // One key at most once per batch: a repeat waits for the next batch and then replays.
    const batch: Pending[] = [];
    const rest: Pending[] = [];
    const keys = new Set<string>();
    for (const p of this.#pending) {
      const k = p.request.idempotency ? keyId(p.request.idempotency) : null;
      if (batch.length >= this.maxBatch || (k !== null && keys.has(k))) rest.push(p);
      else {
        batch.push(p);
        if (k !== null) keys.add(k);
      }
    }
    this.#pending = rest;
    try {
      await this.write(batch);
    } finally {
      this.#busy = false;
      this.#schedule();
    }
  }
}

export function createTradeBatcher(opts: TradeBatcherOptions): TradeBatcher {
  const maxBatch = opts.maxBatch ?? 64;
  const main = new Lane((batch) => run(batch, false), maxBatch);
  /** The queues of markets found locked, each gone once empty. */
  const waiting = new Map<number, Lane>();
  const laneOf = (marketId: number): Lane => {
    let lane = waiting.get(marketId);
    if (!lane) waiting.set(marketId, (lane = new Lane((batch) => run(batch, true), maxBatch, () => waiting.delete(marketId))));
    return lane;
  };

  /**
   * One transaction for the batch; when it fails as a whole, each trade in one of its own.
   * `waits`: whether it waits for market locks (a market's own queue) or skips locked markets.
   */
  const run = async (batch: readonly Pending[], waits: boolean): Promise<void> => {
    let results: TradeSettled[];
    try {
      results = await inTransaction(opts.db, (trx) => placeTradesIn(trx, opts.clock, batch.map((p) => p.request), { skipLockedMarkets: !waits }));
    } catch (e) {
      if (batch.length === 1) return batch[0]!.reject(e);
      for (const p of batch) await run([p], waits);
      return;
    }
    const committed = results.flatMap((r) => (r.ok && r.trade ? [r.trade] : []));
    if (committed.length > 0) {
      try {
        opts.onCommitted?.(committed);
      } catch {
        // The trades are committed; a failing listener must not turn them into errors.
      }
    }
    const again: Pending[] = [];
    results.forEach((r, k) => {
      const p = batch[k]!;
      if (r.ok) p.resolve(r.answer);
      else if (r.error instanceof RetryAlone) again.push(p);
      else if (r.error instanceof MarketBusy) laneOf(p.request.marketId).push(p);
      else p.reject(r.error);
    });
    for (const p of again) await run([p], waits);
  };

  return {
    place(request) {
      return new Promise((resolve, reject) => {
        (waiting.get(request.marketId) ?? main).push({ request, resolve, reject });
      });
    },
  };
}
