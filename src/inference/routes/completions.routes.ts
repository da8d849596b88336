import type { FastifyInstance } from 'fastify';
import { createCompletionStreamEncoder, formatCompletion } from '../formats/openai-completions/format-completion.ts';
import { parseCompletionRequest } from '../formats/openai-completions/parse-completion-request.ts';
import { checkContext, checkModelFeatures } from '../http/check-model-features.ts';
import type { InferenceContext } from '../inference-context.ts';
import { chatModelId } from '../routing/chat-model-id.ts';
import { routeModel } from '../routing/route-model.ts';
import { fallbackRoute } from './fallback-route.ts';
import { INFERENCE_ROUTE_SCHEMA } from './route-schema.ts';
import { serveChatTurn, type ChatTurnFormat } from './serve-chat-turn.ts';

function completionFormat(includeUsage: boolean): ChatTurnFormat {
  return {
    endpoint: 'completions',
    idPrefix: 'cmpl-',
    formatResponse: formatCompletion,
    createStreamEncoder: (identity) => createCompletionStreamEncoder({ id: identity.id, model: identity.model, created: identity.created, includeUsage }),
  };
}

/**
 * POST /completions: OpenAI legacy text completion, streamed or not. The formats layer turns the
 * prompt into a chat turn (see docs/inference-upstreams.md), so every chat model serves it.
 */
export async function completionsRoutes(app: FastifyInstance, ctx: InferenceContext): Promise<void> {
  app.post(
    '/completions',
    {
      onRequest: ctx.guard('inference'),
      schema: { ...INFERENCE_ROUTE_SCHEMA, summary: 'Text completion of a prompt (OpenAI legacy format)' },
    },
    async (request, reply) => {
      const parsed = parseCompletionRequest(request.body);
      const models = (request.body as { models?: unknown }).models;
      if (models !== undefined && models !== null) {
        const route = fallbackRoute(ctx, 'completions', parsed.model, models, parsed.request, (m) => {
          checkModelFeatures(m, parsed.request, { maxTokens: 'max_tokens' });
          checkContext(m, parsed.request, 'prompt');
        });
        return serveChatTurn(ctx, request, reply, { route, request: parsed.request }, completionFormat(parsed.includeUsage));
      }
      const model = ctx.resolveModel(chatModelId(ctx.catalog, parsed.model), 'completions');
      checkModelFeatures(model, parsed.request, { maxTokens: 'max_tokens' });
      checkContext(model, parsed.request, 'prompt');
      const route = routeModel(ctx.catalog, model, parsed.request, ctx.upstreams.health.takesCalls);
      return serveChatTurn(ctx, request, reply, { route, request: parsed.request }, completionFormat(parsed.includeUsage));
    },
  );
}
