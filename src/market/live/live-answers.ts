import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
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

interface Entry {
  readonly versionKey: string;
  readonly computedAt: number;
  readonly validUntil: number;
  readonly body: string;
  readonly etag: string;
}

/**
 * Serialized read answers, reused only while exact: keyed by URL and by the versions of what they
 * depend on (bumped by this instance's own commits before their answers go out, and by the other
 * writers' notifications), and only until the clock moves a window of theirs past a trade. Every
 * answer carries an ETag (a digest of its bytes) and answers `If-None-Match` with 304. Bounded:
 * the least recently stored answers go first.
 */
export class LiveAnswers {
  readonly #entries = new Map<string, Entry>();

  constructor(
    private readonly feed: MarketFeed,
    private readonly clock: Clock,
    private readonly maxEntries = 2000,
  ) {}

  async send(req: FastifyRequest, reply: FastifyReply, deps: AnswerDeps, compute: () => Promise<object>): Promise<FastifyReply> {
    const now = this.clock.now();
    const versionKey = this.#versionKey(deps);
    const key = req.url;
    let entry = this.#entries.get(key);
    if (!entry || entry.versionKey !== versionKey || now < entry.computedAt || now >= entry.validUntil) {
      // The versions are read before computing: a change while computing leaves an entry that
      // no longer matches, so the next read computes again.
      const answer = await compute();
      const body = String(reply.serialize(answer));
      const validUntil = deps.reuse === false ? now : this.feed.nextBoundary(deps.over === 'all' ? 'all' : marketIdsOf(answer), deps.windowsMs, now);
      entry = { versionKey, computedAt: now, validUntil, body, etag: etagOf(body) };
      this.#entries.delete(key);
      if (validUntil > now) {
        this.#entries.set(key, entry);
        if (this.#entries.size > this.maxEntries) this.#entries.delete(this.#entries.keys().next().value!);
      }
    }
    void reply.header('etag', entry.etag);
    if (matches(req.headers['if-none-match'], entry.etag)) return reply.code(304).send();
    return reply.type('application/json; charset=utf-8').send(entry.body);
  }

  #versionKey(deps: AnswerDeps): string {
    if (deps.on === 'all') return `a${this.feed.version()}`;
    return deps.on.map((id) => this.feed.marketVersion(id)).join(',');
  }
}

function etagOf(body: string): string {
  return `"${createHash('sha1').update(body).digest('base64url')}"`;
}

/** If-None-Match: `*` or a list of (possibly weak) tags. */
function matches(header: string | string[] | undefined, etag: string): boolean {
  if (header === undefined) return false;
  const value = Array.isArray(header) ? header.join(',') : header;
  if (value.trim() === '*') return true;
  return value.split(',').some((t) => t.trim().replace(/^W\//, '') === etag);
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
