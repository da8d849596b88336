import type { FastifyInstance } from 'fastify';
import { estimateCharge } from '../billing/estimate.ts';
import { estimateRerankInput } from '../billing/estimate-input.ts';
import { createId } from '../canonical/create-id.ts';
import { formatRerankResponse } from '../formats/rerank/format-rerank-response.ts';
import { parseRerankRequest } from '../formats/rerank/parse-rerank-request.ts';
import type { InferenceContext } from '../inference-context.ts';
import { routeModel } from '../routing/route-model.ts';
import { billedCall } from './credit-hold.ts';
import { INFERENCE_ROUTE_SCHEMA } from './route-schema.ts';

/** POST /rerank: Cohere/Jina v2 rerank (`results: [{index, relevance_score, document?}]`). */
export async function rerankRoutes(app: FastifyInstance, ctx: InferenceContext): Promise<void> {
  app.post(
    '/rerank',
    { onRequest: ctx.guard('inference'), schema: { ...INFERENCE_ROUTE_SCHEMA, summary: 'Rerank documents against a query (Cohere/Jina v2 format)' } },
    async (request, reply) => {
      const parsed = parseRerankRequest(request.body);
      const model = ctx.resolveModel(parsed.model, 'rerank');
      const route = routeModel(ctx.catalog, model, null);
      const { result } = await billedCall({
        ctx,
        request,
        reply,
        route,
        endpoint: 'rerank',
        charge: estimateCharge(model, { inputTokens: estimateRerankInput(parsed.request) }),
        call: (target, signal) => ctx.upstreams.rerank(target, parsed.request, signal),
        usageOf: (r) => ({ usage: r.usage, estimated: r.usageEstimated }),
      });
      return formatRerankResponse(result, {
        id: createId('rerank-'),
        model: model.id,
        documents: parsed.request.documents,
        returnDocuments: parsed.returnDocuments,
      });
    },
  );
}
