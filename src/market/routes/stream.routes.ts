import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { clientIp } from '../../http/client-ip.ts';
import { badRequest, HttpError, notFound } from '../../shared/errors.ts';
import type { Db } from '../../storage/database.ts';
import type { MarketStream } from '../live/market-stream.ts';
import { MAX_ID } from './read-schemas.ts';

/** Most markets one stream may name (more: follow all of them). */
export const MAX_STREAM_MARKETS = 100;

/** `markets=1,2,…` (at most 100 ids) or `all` / absent: every market. */
export function parseStreamMarkets(raw: string | undefined): Set<number> | null {
  if (raw === undefined || raw.trim() === '' || raw.trim() === 'all') return null;
  const parts = raw.split(',').map((s) => s.trim());
  const rule = `must be all or a comma-separated list of at most ${MAX_STREAM_MARKETS} market ids`;
  if (parts.length > MAX_STREAM_MARKETS) throw badRequest(`Invalid markets: ${rule}`);
  const ids = parts.map((p) => (/^[0-9]{1,10}$/.test(p) ? Number(p) : NaN));
  if (ids.some((n) => !Number.isSafeInteger(n) || n < 1 || n > MAX_ID)) throw badRequest(`Invalid markets: ${rule}`);
  return new Set(ids);
}

/** Last-Event-ID (header, or `last_event_id` for clients that cannot set headers): a trade id. */
function lastEventIdOf(header: string | string[] | undefined, query: string | undefined): number | null {
  const v = (Array.isArray(header) ? header[0] : header) ?? query;
  if (v === undefined || v === '') return null;
  if (!/^[0-9]{1,10}$/.test(v)) throw badRequest('Invalid Last-Event-ID: must be an event id of this stream');
  return Number(v);
}

/**
 * Every named market must exist (404 `Market not found`, as everywhere on the market API): a
 * stream of a mistyped id would stay silent for ever.
 */
async function refuseUnknownMarkets(db: Db, markets: ReadonlySet<number>): Promise<void> {
  const found = await db.selectFrom('markets').select('id').where('id', 'in', [...markets]).execute();
  if (found.length !== markets.size) throw notFound('Market not found');
}

const STREAM_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache, no-transform',
  connection: 'keep-alive',
  'x-accel-buffering': 'no',
} as const;

export function streamRoutes(stream: MarketStream, db: Db) {
  return async (app: FastifyInstance): Promise<void> => {
    const r = app.withTypeProvider<TypeBoxTypeProvider>();
    // The streams end before the server waits for its connections to close.
    app.addHook('preClose', async () => stream.close());
    r.get(
      '/stream',
      {
        schema: {
          tags: ['market'],
          summary: 'Server-Sent Events of trades and prices (event ids, Last-Event-ID resume, heartbeat)',
          description:
            '`event: trade` (a Trade record) then `event: price` (`market_id`, `yes_price`, `no_price`, `draw_price` on threeway, `trade_id`, `last_updated`) with `id: <trade id>`, for each trade. `event: reset` when events were missed. A comment line every heartbeat.',
          querystring: Type.Object({
            markets: Type.Optional(Type.String({ maxLength: 1200, description: 'Comma-separated market ids (at most 100), or all (default)' })),
            last_event_id: Type.Optional(Type.String({ maxLength: 20, description: 'Same as the Last-Event-ID header' })),
          }),
        },
      },
      async (req, reply) => {
        const markets = parseStreamMarkets(req.query.markets);
        const lastEventId = lastEventIdOf(req.headers['last-event-id'], req.query.last_event_id);
        if (markets) await refuseUnknownMarkets(db, markets);
        // Node drops the body writes of a HEAD answer, and with them the headers they would have
        // flushed: a HEAD that opened a stream would wait for ever. It gets the stream's headers
        // and ends, holding no stream (docs/api-decisions.md, "Market API: ninth audit").
        if (req.method === 'HEAD') return reply.headers(STREAM_HEADERS).send();
        const ip = clientIp(req);
        if (!stream.admits(ip)) throw new HttpError(429, 'Too many open streams');
        reply.hijack();
        reply.raw.writeHead(200, { ...(reply.getHeaders() as Record<string, string>), ...STREAM_HEADERS });
        // A stream has no end of its own: only the reader's inactivity limit of the socket is off.
        req.raw.socket.setTimeout(0);
        stream.open(reply.raw, ip, markets, lastEventId);
      },
    );
  };
}
