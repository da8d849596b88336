import type { Clock } from '../../shared/clock.ts';
import type { Db } from '../../storage/database.ts';
import type { LiveAnswers } from '../live/live-answers.ts';

/** What every public read route needs. */
export interface ReadRouteOptions {
  readonly db: Db;
  readonly clock: Clock;
  /** Answers reused while exact, with ETags (see live-answers.ts). */
  readonly live: LiveAnswers;
}

export const nowOf = (opts: ReadRouteOptions): Date => new Date(opts.clock.now());
