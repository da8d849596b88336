import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { notFound } from '../../shared/errors.ts';
import { getEventBySlugOrId, getFeaturedEvent, listEvents } from '../queries/events.ts';
import { eventStatusesOf } from '../queries/status-filter.ts';
import { type ReadRouteOptions, nowOf } from './read-context.ts';
import { EventItem, EventWithMarkets } from './read-responses.ts';
import { FlagQuery, PageQuery, envelope, flagOf, nullable, pageEnvelope, pageWindow, readResponses, stringEnum } from './read-schemas.ts';

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
          ...PageQuery,
        }),
        response: readResponses(pageEnvelope(EventItem)),
      },
    },
    async (req) => {
      const { offset, answer } = pageWindow(req.query);
      const { status, active, closed, limit } = req.query;
      const statuses = eventStatusesOf({ status, active: flagOf(active), closed: flagOf(closed) });
      const { items, total } = await listEvents(opts.db, { statuses, offset, limit });
      return { success: true, data: items, total, ...answer };
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
