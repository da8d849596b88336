import type { FastifyInstance } from 'fastify';
import { estimateCharge } from '../billing/estimate.ts';
import { formatImageResponse } from '../formats/images/format-image-response.ts';
import { parseImageRequest } from '../formats/images/parse-image-request.ts';
import type { InferenceContext } from '../inference-context.ts';
import { imageModelId } from '../routing/image-model-id.ts';
import { routeModel } from '../routing/route-model.ts';
import { billedCall } from './credit-hold.ts';
import { INFERENCE_ROUTE_SCHEMA } from './route-schema.ts';

/**
 * POST /images/generations: OpenAI image generation, on its own budget (10/min). A catalog
 * without an image model answers 404 `model not found: <id>`; an image model whose provider is
 * not configured 503 `model <id> is not available` (docs/inference-endpoints.md). A body without
 * `model` gets the catalog's image model (imageModelId). Billed per image generated.
 */
export async function imagesRoutes(app: FastifyInstance, ctx: InferenceContext): Promise<void> {
  app.post(
    '/images/generations',
    { onRequest: ctx.guard('images'), schema: { ...INFERENCE_ROUTE_SCHEMA, summary: 'Image generation (OpenAI format), when configured' } },
    async (request, reply) => {
      const parsed = parseImageRequest(request.body);
      const model = ctx.resolveModel(imageModelId(ctx.catalog, parsed.model), 'images.generations');
      const route = routeModel(ctx.catalog, model, null);
      const { result } = await billedCall({
        ctx,
        request,
        reply,
        route,
        endpoint: 'images.generations',
        charge: estimateCharge(model, { inputTokens: 0, images: parsed.request.n }),
        call: (target, signal) => ctx.upstreams.images(target, parsed.request, signal),
        // Upstreams report no usage for images; what is billed is the count delivered.
        usageOf: (r) => ({ usage: { inputTokens: 0, images: r.images.length }, estimated: false }),
      });
      return formatImageResponse(result, { created: Math.floor(ctx.clock.now() / 1000), responseFormat: parsed.responseFormat });
    },
  );
}
