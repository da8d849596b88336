import { createHash } from 'node:crypto';
import type { Clock } from '../../shared/clock.ts';
import type { MarketFeed } from './market-feed.ts';

/** What an answer depends on, so that it is served again only while it is still exact. */
export interface AnswerDeps {
  /** `all`: any market or event change; else only these markets' changes. */
  readonly on: 'all' | readonly number[];
  /**
   * The look-back windows (ms) of the answer's figures (24-hour volume, price changes); the
   * answer is reused only until one of them next moves past a trade of `over`.
   */
  readonly windowsMs: readonly number[];
  /** Whose trades the windows look at: every market (an ordering by 24-hour volume) or the markets in the answer. */
  readonly over: 'all' | 'answer';
  /** False for answers that move with the clock in ways the windows do not tell (ending_soon). */
  readonly reuse?: boolean;
}

/** A serialized answer and its ETag (a digest of its bytes). */
export interface LiveAnswer {
  readonly body: string;
  readonly etag: string;
}

interface Entry extends LiveAnswer {
  readonly versionKey: string;
  readonly computedAt: number;
  readonly validUntil: number;
}

/**
 * Serialized read answers, reused only while exact: keyed by URL and by the versions of what they
 * depend on (bumped by this instance's own commits before their answers go out, and by the other
 * writers' notifications), and only until the clock moves a window of theirs past a trade. Every
 * answer carries an ETag (a digest of its bytes; the routes answer `If-None-Match` with 304, see
 * routes/send-live-answer.ts). Bounded: the least recently stored answers go first.
 */
export class LiveAnswers {
  readonly #entries = new Map<string, Entry>();

  constructor(
    private readonly feed: MarketFeed,
    private readonly clock: Clock,
    private readonly maxEntries = 2000,
  ) {}

  /**
   * The answer for `key` (a read's URL): the stored one while it is still exact, else `compute`d
   * and `serialize`d now (and stored while a later read may reuse it).
   */
  async get(key: string, deps: AnswerDeps, compute: () => Promise<object>, serialize: (answer: object) => string): Promise<LiveAnswer> {
    const now = this.clock.now();
    const versionKey = this.#versionKey(deps);
    const entry = this.#entries.get(key);
    if (entry && entry.versionKey === versionKey && now >= entry.computedAt && now < entry.validUntil) return entry;
    // The versions are read before computing: a change while computing leaves an entry that
    // no longer matches, so the next read computes again.
    const answer = await compute();
    const body = serialize(answer);
    const validUntil = deps.reuse === false ? now : this.feed.nextBoundary(deps.over === 'all' ? 'all' : marketIdsOf(answer), deps.windowsMs, now);
    const fresh = { versionKey, computedAt: now, validUntil, body, etag: etagOf(body) };
    this.#entries.delete(key);
    if (validUntil > now) {
      this.#entries.set(key, fresh);
      if (this.#entries.size > this.maxEntries) this.#entries.delete(this.#entries.keys().next().value!);
    }
    return fresh;
  }

  #versionKey(deps: AnswerDeps): string {
    if (deps.on === 'all') return `a${this.feed.version()}`;
    return deps.on.map((id) => this.feed.marketVersion(id)).join(',');
  }
}

function etagOf(body: string): string {
  return `"${createHash('sha1').update(body).digest('base64url')}"`;
}

/** The ids of the markets an answer shows (`id` or `market_id` of its records). */
function marketIdsOf(answer: object): number[] {
  const data = (answer as { data?: unknown }).data;
  const ids: number[] = [];
  const visit = (r: unknown) => {
    if (r === null || typeof r !== 'object') return;
    const rec = r as { id?: unknown; market_id?: unknown };
    const id = rec.market_id ?? rec.id;
    if (typeof id === 'number') ids.push(id);
  };
  if (Array.isArray(data)) data.forEach(visit);
  else if (data && typeof data === 'object' && ('id' in data || 'market_id' in data)) visit(data);
  else if (data && typeof data === 'object') Object.values(data).forEach(visit);
  return ids;
}
