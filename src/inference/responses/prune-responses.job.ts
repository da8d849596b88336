import type { Clock } from '../../shared/clock.ts';
import type { Logger } from '../../shared/logger.ts';
import type { Db } from '../../storage/database.ts';
import { pruneExpiredThreads } from '../messages/message-threads.repository.ts';
import { pruneExpiredResponses } from './responses.repository.ts';

/**
 * Stored responses and message thread turns past their retention are already invisible (every
 * read checks expires_at); this job deletes their rows. Returns the function that stops it.
 */
export function startResponsePruning(opts: { db: Db; clock: Clock; logger: Logger; everyMs: number }): () => void {
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    const now = new Date(opts.clock.now());
    Promise.all([pruneExpiredResponses(opts.db, now), pruneExpiredThreads(opts.db, now)])
      .then(
        ([n, turns]) => {
          if (n > 0) opts.logger.info({ deleted: n }, 'pruned expired stored responses');
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
