import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { badRequest } from '../../shared/errors.ts';
import { search } from '../queries/search.ts';
import type { ReadRouteOptions } from './read-context.ts';
import { SearchResult } from './read-responses.ts';
import { envelope, readResponses } from './read-schemas.ts';

export const SEARCH_MIN = 2;
export const SEARCH_MAX = 200;

export async function searchRoutes(app: FastifyInstance, opts: ReadRouteOptions): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  r.get(
    '/search',
    {
      schema: {
        tags: ['market'],
        summary: 'Markets and events whose text contains every word of q (case-insensitive)',
        querystring: Type.Object({
          q: Type.String({ minLength: SEARCH_MIN, maxLength: SEARCH_MAX, description: 'At least 2 characters; every word must match' }),
          limit: Type.Integer({ minimum: 1, maximum: 100, default: 20, description: 'Most markets and most events returned' }),
        }),
        response: readResponses(envelope(SearchResult)),
      },
    },
    async (req) => {
      const q = req.query.q.trim();
      // Surrounding spaces do not count toward the minimum, and characters are counted as the
      // schema counts them (code points): `.length` counts an emoji as two, so `🚀 ` passed
      // (docs/api-decisions.md, "Market API: twelfth audit").
      if ([...q].length < SEARCH_MIN) throw badRequest(`Invalid q: must be between ${SEARCH_MIN} and ${SEARCH_MAX} characters`);
      return { success: true, data: await search(opts.db, q, req.query.limit) };
    },
  );
}
