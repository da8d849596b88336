import { sql, type RawBuilder } from 'kysely';
import type { EventStatus, MarketStatus } from '../market.tables.ts';

export interface StatusQuery<S extends string> {
  readonly status?: S;
  /** Polymarket's `active`: `true` is status active, `false` every other status. */
  readonly active?: boolean;
  /** Polymarket's `closed`: `true` is settled, `false` not settled. */
  readonly closed?: boolean;
}

/**
 * The statuses a list asks for, as the intersection of `status`, `active` and `closed`;
 * undefined when none is given (every status). An empty list is a contradiction
 * (`status=resolved&closed=false`), which matches nothing rather than being refused: each
 * filter is valid alone and a bot composing them gets the honest answer, nothing.
 */
function statusesAmong<S extends string>(all: readonly S[], closed: ReadonlySet<S>, q: StatusQuery<S>): readonly S[] | undefined {
  if (q.status === undefined && q.active === undefined && q.closed === undefined) return undefined;
  return all.filter(
    (s) =>
      (q.status === undefined || s === q.status) &&
      (q.active === undefined || (s === 'active') === q.active) &&
      (q.closed === undefined || closed.has(s) === q.closed),
  );
}

const MARKET_STATUSES: readonly MarketStatus[] = ['active', 'resolved', 'cancelled', 'pending'];
const MARKETS_CLOSED: ReadonlySet<MarketStatus> = new Set(['resolved', 'cancelled']);
const EVENT_STATUSES: readonly EventStatus[] = ['active', 'resolved'];
const EVENTS_CLOSED: ReadonlySet<EventStatus> = new Set(['resolved']);

/** Markets: closed is resolved or cancelled; a pending market has yet to open, so it is not closed. */
export const statusesOf = (q: StatusQuery<MarketStatus>) => statusesAmong(MARKET_STATUSES, MARKETS_CLOSED, q);

/** Events: closed is resolved (every market of the event settled). */
export const eventStatusesOf = (q: StatusQuery<EventStatus>) => statusesAmong(EVENT_STATUSES, EVENTS_CLOSED, q);

/** The condition of a status set on `column`; an empty set matches nothing. */
export function statusIn(column: string, statuses: readonly string[]): RawBuilder<unknown> {
  if (statuses.length === 0) return sql`false`;
  return sql`${sql.ref(column)} in (${sql.join(statuses)})`;
}
