import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { badRequest, notFound } from '../../shared/errors.ts';
import { CHANGE_WINDOWS } from '../pricing/index.ts';
import { HISTORY_INTERVALS, getMarketHistory } from '../queries/market-history.ts';
import { getMarketPrice, getMarketPrices } from '../queries/market-prices.ts';
import { type ReadRouteOptions, nowOf } from './read-context.ts';
import { sendLiveAnswer } from './send-live-answer.ts';
import { BatchPrices, PriceHistory, PriceRecord } from './read-responses.ts';
import { IdParam, MAX_ID, UnixSeconds, envelope, readResponses, stringEnum } from './read-schemas.ts';

/** Most ids one batch price request may name. */
export const MAX_BATCH_IDS = 50;
/** Largest fidelity: one point a year. */
export const MAX_FIDELITY_MINUTES = 525_600;

const tags = ['market'];
const IDS_RULE = `must be a comma-separated list of at most ${MAX_BATCH_IDS} market ids (positive integers)`;

/** Parses `ids` (the schema has checked its shape): at most 50, each a valid id; duplicates once. */
export function parseIds(raw: string): number[] {
  const parts = raw.split(',').map((s) => s.trim());
  if (parts.length > MAX_BATCH_IDS) throw badRequest(`Invalid ids: at most ${MAX_BATCH_IDS} ids`);
  const ids = parts.map((p) => (/^[0-9]+$/.test(p) ? Number(p) : NaN));
  if (ids.some((n) => !Number.isSafeInteger(n) || n < 1 || n > MAX_ID)) throw badRequest(`Invalid ids: ${IDS_RULE}`);
  return [...new Set(ids)];
}

export async function marketPricesRoutes(app: FastifyInstance, opts: ReadRouteOptions): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();

  r.get(
    '/markets/prices',
    {
      schema: {
        tags,
        summary: `Price records of up to ${MAX_BATCH_IDS} markets, keyed by id`,
        querystring: Type.Object({
          ids: Type.String({ minLength: 1, maxLength: 600, pattern: '^[0-9 ,]+$', description: 'Comma-separated market ids, at most 50' }),
        }),
        response: readResponses(envelope(BatchPrices)),
      },
    },
    async (req, reply) => {
      const ids = parseIds(req.query.ids);
      const w = CHANGE_WINDOWS;
      return sendLiveAnswer(opts.live, req, reply, { on: ids, windowsMs: [w['1h'], w['1d'], w['1w']], over: 'answer' }, async () => ({
        success: true,
        data: await getMarketPrices(opts.db, ids, nowOf(opts)),
      }));
    },
  );

  r.get(
    '/markets/:id/price',
    {
      schema: {
        tags,
        summary: 'Price record of one market, with changes over 1h, 1d, 1w, 1m',
        params: Type.Object({ id: IdParam }),
        response: readResponses(envelope(PriceRecord), { notFound: true }),
      },
    },
    async (req, reply) => {
      const w = CHANGE_WINDOWS;
      return sendLiveAnswer(opts.live, req, reply, { on: [req.params.id], windowsMs: [w['1h'], w['1d'], w['1w'], w['1m']], over: 'answer' }, async () => {
        const price = await getMarketPrice(opts.db, req.params.id, nowOf(opts));
        if (!price) throw notFound('Market not found');
        return { success: true, data: price };
      });
    },
  );

  r.get(
    '/markets/:id/history',
    {
      schema: {
        tags,
        summary: 'Price history, sampled every `fidelity` minutes (Polymarket prices-history shape)',
        params: Type.Object({ id: IdParam }),
        querystring: Type.Object({
          interval: Type.Optional(stringEnum(HISTORY_INTERVALS, 'Window back from now (1m = 30 days); default 1d; not with startTs or endTs')),
          startTs: Type.Optional(UnixSeconds('Window start, unix seconds (default the market opening); not after endTs')),
          endTs: Type.Optional(UnixSeconds('Window end, unix seconds (default now; later is read as now)')),
          fidelity: Type.Optional(
            Type.Integer({
              minimum: 1,
              maximum: MAX_FIDELITY_MINUTES,
              description: 'Minutes between points; default 1 (1h), 5 (1d), 60 (1w), 180 (1m), 1440 (all)',
            }),
          ),
          outcome: Type.Optional(stringEnum(['yes', 'no', 'draw'] as const, 'The outcome `p` follows; default yes')),
        }),
        response: readResponses(envelope(PriceHistory), { notFound: true }),
      },
    },
    async (req) => {
      const { fidelity, outcome, startTs, endTs } = req.query;
      const windowed = startTs !== undefined || endTs !== undefined;
      // Polymarket documents interval as exclusive of startTs/endTs; answering one of them
      // silently would hide which window the points cover.
      if (windowed && req.query.interval !== undefined) throw badRequest('Invalid interval: cannot be combined with startTs or endTs');
      const interval = req.query.interval ?? '1d';
      const window = windowed ? { startTs, endTs } : undefined;
      const history = await getMarketHistory(opts.db, req.params.id, { interval, fidelity, outcome, window }, nowOf(opts));
      if (!history) throw notFound('Market not found');
      return { success: true, data: history };
    },
  );
}
