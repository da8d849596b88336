import type { ServerResponse } from 'node:http';
import { tradeRecord } from '../queries/trades.list.ts';
import type { FeedEvent, FeedStatus, FeedTrade, MarketFeed } from './market-feed.ts';

export interface MarketStreamOptions {
  /** Open streams one client address may hold. */
  readonly perIp: number;
  readonly heartbeatMs: number;
  /** Events kept for Last-Event-ID resume (the replay buffer). */
  readonly replayEvents: number;
  /** Bytes a reader may leave unread (Node's buffer of its socket) before it is cut off. */
  readonly maxBufferedBytes: number;
}

/** One trade's events (or a market's status), written once and shared by every reader. */
interface Buffered {
  /** The trade's id; null for a status event, which no Last-Event-ID names. */
  readonly id: number | null;
  readonly marketId: number;
  readonly chunk: string;
}

interface Reader {
  readonly res: ServerResponse;
  readonly markets: ReadonlySet<number> | null;
  readonly ip: string;
}

export interface StreamStats {
  readonly readers: number;
  /** Readers cut off for leaving too much unread, since start. */
  readonly cutOff: number;
  readonly buffered: number;
}

/**
 * The market's Server-Sent Events: for every trade (this instance's and, through the feed, every
 * other instance's) an `event: trade` and then an `event: price` carrying `id: <trade id>`, so a
 * reconnecting client's Last-Event-ID names the last trade it saw whole. Each trade is serialized
 * once into a bounded replay buffer and that same string is written to every reader that follows
 * its market. A reader whose unread bytes pass maxBufferedBytes is cut off (the heap stays
 * bounded); a comment line every heartbeatMs keeps idle connections and proxies open.
 */
export class MarketStream {
  readonly #readers = new Set<Reader>();
  readonly #perIp = new Map<string, number>();
  readonly #buffer: Buffered[] = [];
  #cutOff = 0;
  readonly #heartbeat: NodeJS.Timeout;
  readonly #unsubscribe: () => void;

  constructor(
    feed: MarketFeed,
    private readonly opts: MarketStreamOptions,
  ) {
    this.#unsubscribe = feed.subscribe((e) => this.#onFeed(e));
    this.#heartbeat = setInterval(() => this.#broadcast(': heartbeat\n\n', null), opts.heartbeatMs);
    this.#heartbeat.unref();
  }

  stats(): StreamStats {
    return { readers: this.#readers.size, cutOff: this.#cutOff, buffered: this.#buffer.length };
  }

  /** Whether `ip` may open one more stream. */
  admits(ip: string): boolean {
    return (this.#perIp.get(ip) ?? 0) < this.opts.perIp;
  }

  /**
   * Starts a stream on `res` (headers already written): the replay after `lastEventId` when
   * given, then live events. `markets` null follows every market.
   */
  open(res: ServerResponse, ip: string, markets: ReadonlySet<number> | null, lastEventId: number | null): void {
    const reader: Reader = { res, markets, ip };
    this.#readers.add(reader);
    this.#perIp.set(ip, (this.#perIp.get(ip) ?? 0) + 1);
    res.on('close', () => this.#drop(reader));
    let first = 'retry: 2000\n: connected\n\n';
    if (lastEventId !== null) {
      const at = this.#buffer.findIndex((b) => b.id === lastEventId);
      if (at === -1) {
        // Beyond the buffer (or an id this instance never saw): the client must read the state again.
        first += `event: reset\ndata: ${JSON.stringify({ reason: 'Last-Event-ID is not in the replay buffer; read current prices again' })}\n\n`;
      } else {
        for (const b of this.#buffer.slice(at + 1)) if (!markets || markets.has(b.marketId)) first += b.chunk;
      }
    }
    this.#write(reader, first);
  }

  /** Ends every stream (the app is closing). */
  close(): void {
    clearInterval(this.#heartbeat);
    this.#unsubscribe();
    for (const r of this.#readers) r.res.end();
  }

  #onFeed(e: FeedEvent): void {
    if (e.kind === 'resync') {
      this.#buffer.length = 0;
      this.#broadcast(`event: reset\ndata: ${JSON.stringify({ reason: 'events may have been missed; read current prices again' })}\n\n`, null);
      return;
    }
    let b: Buffered;
    if (e.kind === 'trade') b = { id: e.trade.id, marketId: e.trade.marketId, chunk: chunkOf(e.trade) };
    else if (e.kind === 'status') b = { id: null, marketId: e.change.marketId, chunk: statusChunk(e.change) };
    else return;
    if (this.opts.replayEvents > 0) {
      this.#buffer.push(b);
      if (this.#buffer.length > this.opts.replayEvents) this.#buffer.shift();
    }
    this.#broadcast(b.chunk, b.marketId);
  }

  #broadcast(chunk: string, marketId: number | null): void {
    for (const r of this.#readers) if (marketId === null || !r.markets || r.markets.has(marketId)) this.#write(r, chunk);
  }

  #write(r: Reader, chunk: string): void {
    if (r.res.destroyed) return;
    if (r.res.writableLength + chunk.length > this.opts.maxBufferedBytes) {
      this.#cutOff += 1;
      r.res.destroy();
      this.#drop(r);
      return;
    }
    r.res.write(chunk);
  }

  #drop(r: Reader): void {
    if (!this.#readers.delete(r)) return;
    const n = (this.#perIp.get(r.ip) ?? 1) - 1;
    if (n <= 0) this.#perIp.delete(r.ip);
    else this.#perIp.set(r.ip, n);
  }
}

/**
 * `event: status`: the market's fields of GET /api/markets/:id that its settlement (or opening)
 * sets. No `id:` line, so a reader's Last-Event-ID stays its last trade's, and a reader resuming
 * from that trade gets this event again from the buffer (delivery is at least once).
 */
function statusChunk(s: FeedStatus): string {
  const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
  const data = {
    market_id: s.marketId,
    status: s.status,
    resolved_outcome: s.resolvedOutcome,
    resolved_at: iso(s.resolvedAt),
    cancelled_at: iso(s.cancelledAt),
  };
  return `event: status\ndata: ${JSON.stringify(data)}\n\n`;
}

function chunkOf(t: FeedTrade): string {
  // The record GET /api/trades lists, tx_hash included (docs/api-decisions.md, "Market API: eighth audit").
  const trade = tradeRecord({
    id: t.id,
    market_id: t.marketId,
    wallet: t.wallet,
    outcome: t.outcome,
    amount: t.amount,
    price: t.price,
    shares: t.shares,
    created_at: new Date(t.at),
  });
  const at = trade.timestamp;
  const p = t.pricesAfter;
  const price = {
    market_id: t.marketId,
    yes_price: p.yes,
    no_price: p.no,
    ...(p.draw !== undefined ? { draw_price: p.draw } : {}),
    trade_id: t.id,
    last_updated: at,
  };
  return `event: trade\ndata: ${JSON.stringify(trade)}\n\nid: ${t.id}\nevent: price\ndata: ${JSON.stringify(price)}\n\n`;
}
