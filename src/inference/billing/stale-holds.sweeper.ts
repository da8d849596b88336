import type { Logger } from '../../shared/logger.ts';
import type { Db } from '../../storage/database.ts';
import { releaseStaleHolds } from './credits.repository.ts';

/**
 * A request holds credits until it settles; an instance that dies in between leaves its holds
 * behind. This gives them back once they are older than any request lives (default one hour;
 * a request settling after that is still charged, it only finds its hold gone).
 */
export const STALE_HOLD_AFTER_MS = 60 * 60_000;

export function startStaleHoldSweeper(opts: { db: Db; logger: Logger; everyMs?: number; olderThanMs?: number }): () => void {
  const timer = setInterval(() => {
    releaseStaleHolds(opts.db, opts.olderThanMs ?? STALE_HOLD_AFTER_MS).then(
      (n) => {
        if (n > 0) opts.logger.warn({ released: n }, 'released credit holds of requests that never settled');
      },
      (err: unknown) => opts.logger.warn({ err }, 'could not sweep stale credit holds'),
    );
  }, opts.everyMs ?? 5 * 60_000);
  timer.unref();
  return () => clearInterval(timer);
}
