import type { FastifyInstance } from 'fastify';
import { estimateCharge } from '../billing/estimate.ts';
import { estimateEmbeddingsInput } from '../billing/estimate-input.ts';
import { formatEmbeddingsResponse } from '../formats/embeddings/format-embeddings-response.ts';
import { parseEmbeddingsRequest } from '../formats/embeddings/parse-embeddings-request.ts';
import type { InferenceContext } from '../inference-context.ts';
import { routeModel } from '../routing/route-model.ts';
import { billedCall } from './credit-hold.ts';
import { INFERENCE_ROUTE_SCHEMA } from './route-schema.ts';
import { checkEmbeddingsContext, checkEmbeddingsDimensions } from '../http/check-model-features.ts';

/** POST /embeddings: OpenAI embeddings (string or array input, dimensions, float or base64). */
export async function embeddingsRoutes(app: FastifyInstance, ctx: InferenceContext): Promise<void> {
  app.post(
    '/embeddings',
    { onRequest: ctx.guard('inference'), schema: { ...INFERENCE_ROUTE_SCHEMA, summary: 'Embeddings (OpenAI format)' } },
    async (request, reply) => {
      const parsed = parseEmbeddingsRequest(request.body);
      const model = ctx.resolveModel(parsed.model, 'embeddings');
      checkEmbeddingsDimensions(model, parsed.request.dimensions);
      checkEmbeddingsContext(model, parsed.request.input, 'input');
      const route = routeModel(ctx.catalog, model, null);
      const { result } = await billedCall({
        ctx,
        request,
        reply,
        route,
        endpoint: 'embeddings',
        charge: estimateCharge(model, { inputTokens: estimateEmbeddingsInput(parsed.request) }),
        call: (target, signal) => ctx.upstreams.embeddings(target, parsed.request, signal),
        usageOf: (r) => ({ usage: r.usage, estimated: r.usageEstimated }),
      });
      return formatEmbeddingsResponse(result, { model: model.id, encodingFormat: parsed.encodingFormat });
    },
  );
}
