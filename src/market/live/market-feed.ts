import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import type { Db, Listen } from '../../storage/database.ts';
import type { MarketStatus } from '../market.tables.ts';
import type { Outcome } from '../pricing/index.ts';
import type { CommittedTrade } from '../trading/place-trades.ts';

/** A trade as the live state and the stream see it: a committed trade, its time in ms since the epoch. */
export type FeedTrade = Omit<CommittedTrade, 'at'> & { readonly at: number };

/** A market's new status (migration 2026_11_28_30_market_status_notify); times in ms since the epoch. */
export interface FeedStatus {
  readonly marketId: number;
  readonly status: MarketStatus;
  readonly resolvedOutcome: Outcome | null;
  readonly resolvedAt: number | null;
  readonly cancelledAt: number | null;
}

export type FeedEvent =
  | { readonly kind: 'trade'; readonly trade: FeedTrade }
  | { readonly kind: 'market'; readonly id: number }
  | { readonly kind: 'status'; readonly change: FeedStatus }
  | { readonly kind: 'resync' };

/**
 * What this instance knows of the market's changes, kept current from its own commits (at once,
 * before the trade's answer is sent) and from every other writer through PostgreSQL
 * LISTEN/NOTIFY (migration 2026_11_26_50_market_live): a version per market and one for all,
 * which the read answers are keyed on, and the time of every trade, which tells when an answer's
 * 24-hour volume or price change next moves with the clock alone. Subscribers (the stream) get
 * each trade once.
 */
export interface MarketFeed {
  /** Changes with every change to any market or event. */
  version(): number;
  /** Changes with every change to this market (or a resync). */
  marketVersion(id: number): number;
  /**
   * The earliest moment after `now` at which a figure over one of `windowsMs` (a volume or a
   * price change looking that far back) of the given markets (or all) changes without a write;
   * Infinity when none will.
   */
  nextBoundary(ids: readonly number[] | 'all', windowsMs: readonly number[], now: number): number;
  /** This instance's committed trades, before their answers are sent. */
  committed(trades: readonly CommittedTrade[]): void;
  subscribe(fn: (e: FeedEvent) => void): () => void;
  /** Resolves once every notification committed before the call has been applied. */
  barrier(): Promise<void>;
  stop(): Promise<void>;
}

const TRADE_CHANNEL = 'svc_market_trade';
const CHANGE_CHANNEL = 'svc_market_change';
/** Trade ids remembered to drop the notification of a trade this instance already applied. */
const SEEN_IDS = 65_536;

export async function startMarketFeed(db: Db, listen: Listen): Promise<MarketFeed> {
  let version = 1;
  let floor = 0;
  const marketVersions = new Map<number, number>();
  const times = new Map<number, number[]>();
  const subscribers = new Set<(e: FeedEvent) => void>();
  const barriers = new Map<string, () => void>();
  const seen = new Set<number>();
  const seenOrder: number[] = [];
  let loading: unknown[] | null = null;

  const emit = (e: FeedEvent) => {
    for (const fn of subscribers) {
      try {
        fn(e);
      } catch {
        // One subscriber's failure is its own.
      }
    }
  };
  const touch = (id: number) => {
    version += 1;
    marketVersions.set(id, version);
  };
  const addTime = (marketId: number, at: number) => {
    let list = times.get(marketId);
    if (!list) times.set(marketId, (list = []));
    let i = list.length;
    while (i > 0 && list[i - 1]! > at) i -= 1;
    list.splice(i, 0, at);
  };
  const applyTrade = (t: FeedTrade) => {
    if (seen.has(t.id)) return;
    seen.add(t.id);
    seenOrder.push(t.id);
    if (seenOrder.length > SEEN_IDS) seen.delete(seenOrder.shift()!);
    addTime(t.marketId, t.at);
    touch(t.marketId);
    emit({ kind: 'trade', trade: t });
  };
  const onNotify = (channel: string, payload: string) => {
    if (loading) {
      loading.push([channel, payload]);
      return;
    }
    if (channel === TRADE_CHANNEL) return applyTrade(tradeOf(payload));
    if (payload.startsWith('b')) return barriers.get(payload.slice(1))?.();
    // The market's own `m<id>` came first and moved its version; this only tells the stream.
    if (payload.startsWith('s')) return emit({ kind: 'status', change: statusOf(payload.slice(1)) });
    const id = Number(payload.slice(1));
    if (payload.startsWith('m')) {
      touch(id);
      emit({ kind: 'market', id });
    } else version += 1;
  };
  /** Reads every trade time again: at start, and after the listening connection was lost. */
  const load = async () => {
    loading = [];
    try {
      const r = await sql<{ market_id: number; t: string }>`
        select market_id, (extract(epoch from created_at) * 1000)::bigint::text as t from trades order by market_id, created_at`.execute(db);
      times.clear();
      for (const row of r.rows) {
        let list = times.get(row.market_id);
        if (!list) times.set(row.market_id, (list = []));
        list.push(Number(row.t));
      }
    } finally {
      const queued = loading as [string, string][];
      loading = null;
      version += 1;
      floor = version;
      for (const [c, p] of queued) onNotify(c, p);
    }
  };

  const stopListening = await listen([TRADE_CHANNEL, CHANGE_CHANNEL], onNotify, () => {
    void load().then(() => emit({ kind: 'resync' }));
  });
  await load();

  return {
    version: () => version,
    marketVersion: (id) => Math.max(marketVersions.get(id) ?? 0, floor),
    nextBoundary(ids, windowsMs, now) {
      let next = Infinity;
      const lists = ids === 'all' ? times.values() : ids.map((id) => times.get(id) ?? []);
      for (const list of lists) {
        for (const w of windowsMs) {
          const t = firstAfter(list, now - w);
          if (t !== undefined) next = Math.min(next, t + w);
        }
        const future = firstAfter(list, now);
        if (future !== undefined) next = Math.min(next, future);
      }
      return next;
    },
    committed(trades) {
      for (const t of trades) applyTrade({ ...t, at: t.at.getTime() });
    },
    subscribe(fn) {
      subscribers.add(fn);
      return () => void subscribers.delete(fn);
    },
    async barrier() {
      const token = randomUUID();
      const arrived = new Promise<void>((resolve) => barriers.set(token, resolve));
      await sql`select pg_notify(${CHANGE_CHANNEL}, ${`b${token}`})`.execute(db);
      await arrived;
      barriers.delete(token);
    },
    async stop() {
      subscribers.clear();
      await stopListening();
    },
  };
}

/** The first time in a sorted list strictly after `t`. */
function firstAfter(list: readonly number[], t: number): number | undefined {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (list[mid]! <= t) lo = mid + 1;
    else hi = mid;
  }
  return list[lo];
}

function statusOf(payload: string): FeedStatus {
  const j = JSON.parse(payload) as { id: number; status: MarketStatus; o: Outcome | null; r: number | null; c: number | null };
  return { marketId: j.id, status: j.status, resolvedOutcome: j.o, resolvedAt: j.r, cancelledAt: j.c };
}

function tradeOf(payload: string): FeedTrade {
  const j = JSON.parse(payload) as { id: number; m: number; w: string; o: Outcome; a: string; s: string; p: number; y: number; n: number; d: number | null; t: number };
  return {
    id: j.id,
    marketId: j.m,
    wallet: j.w,
    outcome: j.o,
    amount: BigInt(j.a),
    shares: BigInt(j.s),
    price: j.p,
    pricesAfter: j.d === null ? { yes: j.y, no: j.n } : { yes: j.y, no: j.n, draw: j.d },
    at: Number(j.t),
  };
}
