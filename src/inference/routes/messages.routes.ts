import type { FastifyInstance } from 'fastify';
import type { CanonicalChatResponse } from '../canonical/chat.ts';
import { createMessagesStreamEncoder } from '../formats/anthropic-messages/create-messages-stream-encoder.ts';
import { formatMessage } from '../formats/anthropic-messages/format-message.ts';
import { messagesMaxTokens, parseMessagesRequest } from '../formats/anthropic-messages/parse-messages-request.ts';
import type { ReasoningSealer } from '../formats/reasoning-content.ts';
import type { StreamEncoder, TurnIdentity } from '../formats/stream-encoder.ts';
import { anthropicRequestId } from '../http/anthropic-request-id.ts';
import { checkContext, checkModelFeatures } from '../http/check-model-features.ts';
import { principalOf } from '../http/principal.ts';
import type { InferenceContext } from '../inference-context.ts';
import { chatModelId } from '../routing/chat-model-id.ts';
import { routeModel } from '../routing/route-model.ts';
import { estimateChatInputTokens } from '../tokens/count-tokens.ts';
import { INFERENCE_ROUTE_SCHEMA } from './route-schema.ts';
import { serveChatTurn, type ChatTurnFormat } from './serve-chat-turn.ts';

/**
 * The format of one request: `sealer` (the account's) seals the thinking signatures and redacted
 * data of its answer. One object per request (its methods shared); the sealer seals nothing, nor
 * builds its context, unless the answer has such blocks.
 */
class MessagesFormat implements ChatTurnFormat {
  readonly endpoint = 'messages';
  readonly idPrefix = 'msg_';

  constructor(private readonly sealer: ReasoningSealer) {}

  formatResponse(response: CanonicalChatResponse, identity: TurnIdentity): object {
    return formatMessage(response, identity, this.sealer);
  }

  createStreamEncoder(identity: TurnIdentity): StreamEncoder {
    return createMessagesStreamEncoder(identity, this.sealer);
  }
}

const SCHEMA = INFERENCE_ROUTE_SCHEMA;

/**
 * POST /messages and /messages/count_tokens: the Anthropic Messages protocol on any chat model,
 * whatever upstream kind serves it. `x-api-key` is accepted next to `Authorization: Bearer`;
 * `anthropic-version` and `anthropic-beta` are accepted and not needed. Answers carry Anthropic's
 * `request-id` next to `x-request-id`.
 */
export async function messagesRoutes(app: FastifyInstance, ctx: InferenceContext): Promise<void> {
  app.addHook('onRequest', anthropicRequestId);
  app.post(
    '/messages',
    {
      onRequest: ctx.guard('inference', { allowXApiKey: true }),
      schema: { ...SCHEMA, summary: 'Messages (Anthropic format; stream, tools, thinking, structured output, vision)' },
    },
    async (request, reply) => {
      const sealer = ctx.reasoningSealer(principalOf(request).accountId);
      const parsed = parseMessagesRequest(request.body, sealer);
      const model = ctx.resolveModel(chatModelId(ctx.catalog, parsed.model), 'messages');
      checkModelFeatures(model, parsed.request, { maxTokens: 'max_tokens' });
      checkContext(model, parsed.request, 'messages');
      // max_tokens is optional here; the default keeps the answer within what the hold reserves.
      const canonical = { ...parsed.request, maxTokens: messagesMaxTokens(parsed.request, model.maxOutput) };
      const route = routeModel(ctx.catalog, model, canonical, ctx.upstreams.health.takesCalls);
      return serveChatTurn(ctx, request, reply, { route, request: canonical }, new MessagesFormat(sealer));
    },
  );

  app.post(
    '/messages/count_tokens',
    {
      onRequest: ctx.guard('inference', { allowXApiKey: true }),
      schema: { ...SCHEMA, summary: 'Count the input tokens of a messages request (an estimate with the o200k tokenizer)' },
    },
    async (request) => {
      // No max_tokens default: Anthropic's count_tokens takes none, and a stand-in would refuse any
      // thinking budget (it must be below max_tokens). A max_tokens the client gives is still
      // checked, as the messages request would be (docs/api-decisions.md, "Inference: thirteenth audit").
      const parsed = parseMessagesRequest(request.body, ctx.reasoningSealer(principalOf(request).accountId));
      const model = ctx.resolveModel(chatModelId(ctx.catalog, parsed.model), 'messages');
      checkModelFeatures(model, parsed.request, { maxTokens: 'max_tokens' });
      return { input_tokens: estimateChatInputTokens(parsed.request) };
    },
  );
}
