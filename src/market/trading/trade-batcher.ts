import type { Clock } from '../../shared/clock.ts';
import type { Db } from '../../storage/database.ts';
import type { StoredAnswer } from '../auth/idempotency.ts';
import { inTransaction } from '../market-transaction.ts';
import { type CommittedTrade, keyId, placeTradesIn, RetryAlone, type TradeRequest, type TradeSettled } from './place-trades.ts';

/**
 * Group commit of trades: trades that arrive while the previous batch is being written (or in
 * the same turn of the event loop) are placed together, whatever their markets, in one
 * transaction by placeTradesIn; each caller is answered only after that transaction committed.
 * One batch is written at a time, so a busy service commits once per batch rather than once per
 * trade (a transaction's begin, locks, statement planning and commit cost far more than a trade's
 * rows), and no two of its batches wait for each other's row locks.
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
  let pending: Pending[] = [];
  let busy = false;
  let scheduled = false;

  const schedule = () => {
    if (busy || scheduled || pending.length === 0) return;
    scheduled = true;
    // After the current I/O callbacks: trades that arrived together are placed together.
    setImmediate(() => {
      scheduled = false;
      void flush();
    });
  };

  const flush = async () => {
    busy = true;
    // One key at most once per batch: a repeat waits for the next batch and then replays.
    const batch: Pending[] = [];
    const rest: Pending[] = [];
    const keys = new Set<string>();
    for (const p of pending) {
      const k = p.request.idempotency ? keyId(p.request.idempotency) : null;
      if (batch.length >= maxBatch || (k !== null && keys.has(k))) rest.push(p);
      else {
        batch.push(p);
        if (k !== null) keys.add(k);
      }
    }
    pending = rest;
    try {
      await run(batch);
    } finally {
      busy = false;
      schedule();
    }
  };

  /** One transaction for the batch; when it fails as a whole, each trade in one of its own. */
  const run = async (batch: readonly Pending[]) => {
    let results: TradeSettled[];
    try {
      results = await inTransaction(opts.db, (trx) => placeTradesIn(trx, opts.clock, batch.map((p) => p.request)));
    } catch (e) {
      if (batch.length === 1) return batch[0]!.reject(e);
      for (const p of batch) await run([p]);
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
    for (const p of again) await run([p]);
  };

  return {
    place(request) {
      return new Promise((resolve, reject) => {
        pending.push({ request, resolve, reject });
        schedule();
      });
    },
  };
}
