import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { badRequest, notFound } from '../../shared/errors.ts';
import { getEventBySlugOrId, getFeaturedEvent, listEvents } from '../queries/events.ts';
import { eventStatusesOf } from '../queries/status-filter.ts';
import { type ReadRouteOptions, nowOf } from './read-context.ts';
import { EventItem, EventWithMarkets } from './read-responses.ts';
import {
  CursorQuery,
  FlagQuery,
  PageQuery,
  envelope,
  flagOf,
  nullable,
  pageEnvelope,
  pageWindow,
  readResponses,
  refuseCursorWithPage,
  stringEnum,
} from './read-schemas.ts';

const tags = ['market'];

export async function eventsRoutes(app: FastifyInstance, opts: ReadRouteOptions): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();

  r.get(
    '/events',
    {
      schema: {
        tags,
        summary: 'List events, newest first',
        querystring: Type.Object({
          status: Type.Optional(stringEnum(['active', 'resolved'] as const, 'Event status')),
          active: Type.Optional(FlagQuery("Polymarket's filter: true is status active, false resolved; combines with status")),
          closed: Type.Optional(FlagQuery("Polymarket's filter: true is resolved, false active; combines with status")),
          cursor: CursorQuery('An event id, the last of the page read: the events after it, older, however many were created since'),
          ...PageQuery,
        }),
        response: readResponses(pageEnvelope(EventItem)),
      },
    },
    async (req) => {
      const { offset, answer } = pageWindow(req.query);
      refuseCursorWithPage(req.query);
      const { status, active, closed, limit, cursor } = req.query;
      const statuses = eventStatusesOf({ status, active: flagOf(active), closed: flagOf(closed) });
      const page = await listEvents(opts.db, { statuses, cursor, offset, limit });
      if (page === 'cursor') throw badRequest(`Invalid cursor: no event ${cursor}`);
      return { success: true, data: page.items, total: page.total, ...answer };
    },
  );

  // A static route beside /events/:slugOrId: its word is in EVENT_ROUTE_WORDS
  // (src/market/slugs/event-slug.ts), so no event is slugged like it.
  r.get(
    '/events/featured',
    {
      schema: {
        tags,
        summary: 'The event an admin featured most recently, with its markets (null when none)',
        response: readResponses(envelope(nullable(EventWithMarkets))),
      },
    },
    async () => ({ success: true, data: await getFeaturedEvent(opts.db, nowOf(opts)) }),
  );

  r.get(
    '/events/:slugOrId',
    {
      schema: {
        tags,
        summary: 'One event by numeric id or slug, with its markets',
        params: Type.Object({ slugOrId: Type.String({ minLength: 1, maxLength: 100 }) }),
        response: readResponses(envelope(EventWithMarkets), { notFound: true }),
      },
    },
    async (req) => {
      const event = await getEventBySlugOrId(opts.db, req.params.slugOrId, nowOf(opts));
      if (!event) throw notFound('Event not found');
      return { success: true, data: event };
    },
  );
}
