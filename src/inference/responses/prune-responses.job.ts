import type { Clock } from '../../shared/clock.ts';
import type { Logger } from '../../shared/logger.ts';
import type { Db } from '../../storage/database.ts';
import { pruneExpiredThreads } from '../messages/message-threads.repository.ts';
import { pruneAbandonedRunning, pruneExpiredResponses } from './responses.repository.ts';

/**
 * How long a stored stream may run before its `in_progress` row counts as left by a stopped
 * instance. A stream has no end bound of its own (`max_total_ms` bounds the wait for its start;
 * an upstream that keeps sending keeps it open), so this is generous: a stream running longer
 * is answered to its client but not kept (its end finds no row to update).
 */
export const ABANDONED_RUNNING_MS = 6 * 3_600_000;

/**
 * Stored responses and message thread turns past their retention are already invisible (every
 * read checks expires_at); this job deletes their rows, and the `in_progress` rows of streams a
 * stopped instance left (pruneAbandonedRunning). Returns the function that stops it.
 */
export function startResponsePruning(opts: { db: Db; clock: Clock; logger: Logger; everyMs: number }): () => void {
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    const now = new Date(opts.clock.now());
    const startedBefore = new Date(now.getTime() - ABANDONED_RUNNING_MS);
    Promise.all([pruneExpiredResponses(opts.db, now), pruneExpiredThreads(opts.db, now), pruneAbandonedRunning(opts.db, startedBefore)])
      .then(
        ([n, turns, left]) => {
          if (n > 0) opts.logger.info({ deleted: n }, 'pruned expired stored responses');
          if (left > 0) opts.logger.warn({ deleted: left }, 'removed stored responses left in progress by a stopped instance');
          if (turns > 0) opts.logger.info({ deleted: turns }, 'pruned expired message thread turns');
        },
        (err: unknown) => opts.logger.warn({ err }, 'could not prune expired stored responses'),
      )
      .finally(() => {
        running = false;
      });
  }, opts.everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
