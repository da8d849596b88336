import type { Clock } from '../../shared/clock.ts';
import type { Db } from '../../storage/database.ts';
import type { StoredAnswer } from '../auth/idempotency.ts';
import { inTransaction } from '../market-transaction.ts';
import { type CommittedTrade, keyId, placeTradesIn, RetryAlone, type TradeRequest, type TradeSettled } from './place-trades.ts';

/**
 * Group commit of trades, one queue per market. Trades that arrive for a market while its
 * previous batch is being written (or in the same turn of the event loop) are placed together in
 * one transaction by placeTradesIn; each caller is answered only after that transaction
 * committed. A hot market then commits once per batch instead of once per trade, and its row
 * lock is taken once per batch instead of being queued for by every trade; markets run their
 * batches side by side.
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

export function createTradeBatcher(opts: TradeBatcherOptions): TradeBatcher {
  const maxBatch = opts.maxBatch ?? 64;
  const queues = new Map<number, { pending: Pending[]; busy: boolean; scheduled: boolean }>();

  const schedule = (marketId: number) => {
    const q = queues.get(marketId);
    if (!q || q.busy || q.scheduled) return;
    if (q.pending.length === 0) {
      queues.delete(marketId);
      return;
    }
    q.scheduled = true;
    // After the current I/O callbacks: trades that arrived together are placed together.
    setImmediate(() => {
      q.scheduled = false;
      void flush(marketId, q);
    });
  };

  const flush = async (marketId: number, q: { pending: Pending[]; busy: boolean }) => {
    q.busy = true;
    // One key at most once per batch: a repeat waits for the next batch and then replays.
    const batch: Pending[] = [];
    const rest: Pending[] = [];
    const keys = new Set<string>();
    for (const p of q.pending) {
      const k = p.request.idempotency ? keyId(p.request.idempotency) : null;
      if (batch.length >= maxBatch || (k !== null && keys.has(k))) rest.push(p);
      else {
        batch.push(p);
        if (k !== null) keys.add(k);
      }
    }
    q.pending = rest;
    try {
      await run(marketId, batch);
    } finally {
      q.busy = false;
      schedule(marketId);
    }
  };

  /** One transaction for the batch; when it fails as a whole, each trade in one of its own. */
  const run = async (marketId: number, batch: readonly Pending[]) => {
    let results: TradeSettled[];
    try {
      results = await inTransaction(opts.db, (trx) => placeTradesIn(trx, opts.clock, marketId, batch.map((p) => p.request)));
    } catch (e) {
      if (batch.length === 1) return batch[0]!.reject(e);
      for (const p of batch) await run(marketId, [p]);
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
      else p.reject(r.error);
    });
    for (const p of again) await run(marketId, [p]);
  };

  return {
    place(request) {
      return new Promise((resolve, reject) => {
        let q = queues.get(request.marketId);
        if (!q) {
          q = { pending: [], busy: false, scheduled: false };
          queues.set(request.marketId, q);
        }
        q.pending.push({ request, resolve, reject });
        schedule(request.marketId);
      });
    },
  };
}
