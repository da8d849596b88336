import type { Clock } from '../../shared/clock.ts';
import type { Logger } from '../../shared/logger.ts';
import type { Db } from '../../storage/database.ts';
import { pruneExpiredResponses } from './responses.repository.ts';

/**
 * Stored responses past their retention are already invisible (every read checks expires_at);
 * this job deletes their rows. Returns the function that stops it.
 */
export function startResponsePruning(opts: { db: Db; clock: Clock; logger: Logger; everyMs: number }): () => void {
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    pruneExpiredResponses(opts.db, new Date(opts.clock.now()))
      .then(
        (n) => {
          if (n > 0) opts.logger.info({ deleted: n }, 'pruned expired stored responses');
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
