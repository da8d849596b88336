import type { MarketStatus } from '../market.tables.ts';

const ALL: readonly MarketStatus[] = ['active', 'resolved', 'cancelled', 'pending'];
const CLOSED: ReadonlySet<MarketStatus> = new Set(['resolved', 'cancelled']);

export interface StatusQuery {
  readonly status?: MarketStatus;
  /** Polymarket's `active`: `true` is status active, `false` every other status. */
  readonly active?: boolean;
  /** Polymarket's `closed`: `true` is settled (resolved or cancelled), `false` not settled. */
  readonly closed?: boolean;
}

/**
 * The statuses a list asks for, as the intersection of `status`, `active` and `closed`;
 * undefined when none is given (every status). An empty list is a contradiction
 * (`status=resolved&closed=false`), which matches no market rather than being refused: each
 * filter is valid alone and a bot composing them gets the honest answer, nothing.
 */
export function statusesOf(q: StatusQuery): readonly MarketStatus[] | undefined {
  if (q.status === undefined && q.active === undefined && q.closed === undefined) return undefined;
  return ALL.filter(
    (s) =>
      (q.status === undefined || s === q.status) &&
      (q.active === undefined || (s === 'active') === q.active) &&
      (q.closed === undefined || CLOSED.has(s) === q.closed),
  );
}
