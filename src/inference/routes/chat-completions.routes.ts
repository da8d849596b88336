import type { FastifyInstance } from 'fastify';
import { createChatStreamEncoder } from '../formats/openai-chat/create-chat-chunk-formatter.ts';
import { formatChatCompletion } from '../formats/openai-chat/format-chat-completion.ts';
import { parseChatCompletionRequest, type ParsedChatCompletionRequest } from '../formats/openai-chat/parse-chat-completion-request.ts';
import type { ReasoningSealer } from '../formats/reasoning-content.ts';
import { checkContext, checkModelFeatures } from '../http/check-model-features.ts';
import { principalOf } from '../http/principal.ts';
import type { InferenceContext } from '../inference-context.ts';
import { chatModelId } from '../routing/chat-model-id.ts';
import { routeModel } from '../routing/route-model.ts';
import { fallbackRoute } from './fallback-route.ts';
import { INFERENCE_ROUTE_SCHEMA } from './route-schema.ts';
import { serveChatTurn, type ChatTurnFormat } from './serve-chat-turn.ts';

/**
 * The format of one request: `sealer` (the account's) seals the reasoning blocks of its answer;
 * calls of the request's custom tools are custom tool calls.
 */
function chatFormat({ includeUsage, customTools }: ParsedChatCompletionRequest, sealer: ReasoningSealer): ChatTurnFormat {
  return {
    endpoint: 'chat.completions',
    idPrefix: 'chatcmpl-',
    formatResponse: (response, identity) => formatChatCompletion(response, identity, sealer, customTools),
    createStreamEncoder: (identity) => createChatStreamEncoder({ id: identity.id, model: identity.model, created: identity.created, includeUsage, sealer, customTools }),
  };
}

/** POST /chat/completions: OpenAI chat completions, streamed or not, on any chat model. */
export async function chatCompletionsRoutes(app: FastifyInstance, ctx: InferenceContext): Promise<void> {
  app.post(
    '/chat/completions',
    {
      onRequest: ctx.guard('inference'),
      schema: { ...INFERENCE_ROUTE_SCHEMA, summary: 'Chat completion (OpenAI format; stream, tools, structured output, vision)' },
    },
    async (request, reply) => {
      const sealer = ctx.reasoningSealer(principalOf(request).accountId);
      const parsed = parseChatCompletionRequest(request.body, sealer);
      const body = request.body as Record<string, unknown>;
      const maxTokensField = body.max_completion_tokens !== undefined && body.max_completion_tokens !== null ? 'max_completion_tokens' : 'max_tokens';
      if (body.models !== undefined && body.models !== null) {
        const route = fallbackRoute(ctx, 'chat.completions', parsed.model, body.models, parsed.request, (m) => {
          checkModelFeatures(m, parsed.request, { maxTokens: maxTokensField });
          checkContext(m, parsed.request, 'messages');
        });
        return serveChatTurn(ctx, request, reply, { route, request: parsed.request }, chatFormat(parsed, sealer));
      }
      const model = ctx.resolveModel(chatModelId(ctx.catalog, parsed.model), 'chat.completions');
      checkModelFeatures(model, parsed.request, { maxTokens: maxTokensField });
      checkContext(model, parsed.request, 'messages');
      const route = routeModel(ctx.catalog, model, parsed.request, ctx.upstreams.health.takesCalls);
      return serveChatTurn(ctx, request, reply, { route, request: parsed.request }, chatFormat(parsed, sealer));
    },
  );
}
