import type { Clock } from '../../shared/clock.ts';
import type { Db } from '../../storage/database.ts';

/** What every public read route needs. */
export interface ReadRouteOptions {
  readonly db: Db;
  readonly clock: Clock;
}

export const nowOf = (opts: ReadRouteOptions): Date => new Date(opts.clock.now());
