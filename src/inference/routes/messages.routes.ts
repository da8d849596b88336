import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import { notFound } from '../../shared/errors.ts';
import type { Db } from '../../storage/database.ts';
import type { CanonicalChatResponse } from '../canonical/chat.ts';
import { StreamCollector } from '../canonical/collect-stream.ts';
import { createMessagesStreamEncoder } from '../formats/anthropic-messages/create-messages-stream-encoder.ts';
import { formatMessage } from '../formats/anthropic-messages/format-message.ts';
import { answerAsMessage, continuedBody, ownMessages, readThreadParam, type ThreadParam } from '../formats/anthropic-messages/message-thread.ts';
import { messagesMaxTokens, parseMessagesRequest } from '../formats/anthropic-messages/parse-messages-request.ts';
import type { ReasoningSealer } from '../formats/reasoning-content.ts';
import type { StreamEncoder, TurnIdentity } from '../formats/stream-encoder.ts';
import { anthropicRequestId } from '../http/anthropic-request-id.ts';
import { checkContext, checkModelFeatures } from '../http/check-model-features.ts';
import { principalOf } from '../http/principal.ts';
import type { InferenceRoutes } from '../inference-plugin.ts';
import type { InferenceContext } from '../inference-context.ts';
import { loadThread, saveThreadTurn } from '../messages/message-threads.repository.ts';
import { chatModelId } from '../routing/chat-model-id.ts';
import { isUpstreamOverloaded, overloadedAsAnthropic } from '../upstream/upstream-error.ts';
import { routeModel } from '../routing/route-model.ts';
import { estimateChatInputTokens } from '../tokens/count-tokens.ts';
import { INFERENCE_ROUTE_SCHEMA } from './route-schema.ts';
import { serveChatTurn, type ChatTurnFormat } from './serve-chat-turn.ts';

/** Where a threaded turn's answer goes once it is whole: the turn's row, keyed by the answer's id. */
type SaveTurn = (answer: { id: string; content: unknown }) => Promise<void>;

/**
 * The format of one request: `sealer` (the account's) seals the thinking signatures and redacted
 * data of its answer. One object per request (its methods shared); the sealer seals nothing, nor
 * builds its context, unless the answer has such blocks. With `saveTurn` (a threaded request) the
 * answer is kept whole, streamed or not, and saved before the client has its end.
 */
class MessagesFormat implements ChatTurnFormat {
  readonly endpoint = 'messages';
  readonly idPrefix = 'msg_';
  readonly clientError = messagesClientError;
  private answer: (() => { id: string; content: unknown } | null) | null = null;

  constructor(
    private readonly sealer: ReasoningSealer,
    private readonly saveTurn: SaveTurn | null = null,
  ) {}

  formatResponse(response: CanonicalChatResponse, identity: TurnIdentity): object {
    const message = formatMessage(response, identity, this.sealer);
    if (this.saveTurn) this.answer = () => message;
    return message;
  }

  createStreamEncoder(identity: TurnIdentity): StreamEncoder {
    const encoder = createMessagesStreamEncoder(identity, this.sealer);
    if (!this.saveTurn) return encoder;
    // Part by part (no text runs): the collector needs every text.
    const collector = new StreamCollector();
    this.answer = () => {
      const response = collector.response();
      return response && formatMessage(response, identity, this.sealer);
    };
    return {
      start: () => encoder.start(),
      encode: (part) => {
        collector.add(part);
        return encoder.encode(part);
      },
      fail: (error) => encoder.fail(error),
      end: () => encoder.end(),
    };
  }

  async answered(): Promise<void> {
    const answer = this.answer?.();
    if (answer && this.saveTurn) await this.saveTurn(answer);
  }
}

/**
 * An overloaded upstream is the Messages API's 529 (`overloaded_error` in a stream), which the
 * Anthropic SDKs know as OverloadedError; the OpenAI protocols keep their 503. Every other failure
 * is the service's own status (docs/api-decisions.md, "Messages errors by status (session 27)").
 */
function messagesClientError(error: unknown): unknown {
  return isUpstreamOverloaded(error) ? overloadedAsAnthropic(error) : error;
}

export interface MessagesDeps {
  readonly db: Db;
  /** How long a message thread's turns are kept (the retention of stored responses). */
  readonly threadRetentionMs: number;
}

const SCHEMA = INFERENCE_ROUTE_SCHEMA;

/**
 * POST /messages and /messages/count_tokens: the Anthropic Messages protocol on any chat model,
 * whatever upstream kind serves it. `x-api-key` is accepted next to `Authorization: Bearer`;
 * `anthropic-version` and `anthropic-beta` are accepted and not needed. Answers carry Anthropic's
 * `request-id` next to `x-request-id`. A `thread` (message-thread.ts) keeps the conversation here
 * between turns.
 */
export function messagesRoutes(deps: MessagesDeps): InferenceRoutes {
  /**
   * The request as a whole: a continuing turn's body with its thread's system, tools and messages.
   * Only a continuing turn reads the database; every other request keeps its body and no await.
   */
  async function continuedTurn(body: unknown, previousMessageId: string, accountId: number, now: number): Promise<unknown> {
    const found = await loadThread(deps.db, accountId, previousMessageId, new Date(now));
    if (found.kind === 'missing') throw notFound(`thread.previous_message_id: no thread has a message ${previousMessageId}`);
    if (found.kind === 'broken') {
      throw notFound(`thread.previous_message_id: message ${previousMessageId} continues a thread whose earlier turns have expired; start a new thread`);
    }
    return continuedBody(body, found);
  }

  function turnSaver(body: unknown, thread: ThreadParam, accountId: number, now: number, log: FastifyBaseLogger): SaveTurn {
    const fields = body as { system?: unknown; tools?: unknown };
    return async (answer) => {
      try {
        await saveThreadTurn(deps.db, {
          id: answer.id,
          accountId,
          parentId: thread.type === 'continue' ? thread.previousMessageId : null,
          system: thread.type === 'create' ? (fields.system ?? undefined) : undefined,
          tools: thread.type === 'create' ? (fields.tools ?? undefined) : undefined,
          messages: [...ownMessages(body), answerAsMessage(answer)],
          createdAt: new Date(now),
          expiresAt: new Date(now + deps.threadRetentionMs),
        });
      } catch (err) {
        // The answer stands (it is paid for); a turn that continues it is told the thread is unknown.
        log.warn({ err, messageId: answer.id }, 'could not keep a message thread turn');
      }
    };
  }

  return async (app: FastifyInstance, ctx: InferenceContext): Promise<void> => {
    app.addHook('onRequest', anthropicRequestId);
    app.post(
      '/messages',
      {
        onRequest: ctx.guard('inference', { allowXApiKey: true }),
        schema: { ...SCHEMA, summary: 'Messages (Anthropic format; stream, tools, thinking, structured output, vision, threads)' },
      },
      async (request, reply) => {
        const accountId = principalOf(request).accountId;
        const sealer = ctx.reasoningSealer(accountId);
        const thread = readThreadParam(request.body);
        const now = ctx.clock.now();
        const body = thread?.type === 'continue' ? await continuedTurn(request.body, thread.previousMessageId, accountId, now) : request.body;
        const parsed = parseMessagesRequest(body, sealer);
        const model = ctx.resolveModel(chatModelId(ctx.catalog, parsed.model), 'messages');
        checkModelFeatures(model, parsed.request, { maxTokens: 'max_tokens' });
        checkContext(model, parsed.request, 'messages');
        // max_tokens is optional here; the default keeps the answer within what the hold reserves.
        const canonical = { ...parsed.request, maxTokens: messagesMaxTokens(parsed.request, model) };
        const route = routeModel(ctx.catalog, model, canonical, ctx.upstreams.health.takesCalls);
        const saveTurn = thread && turnSaver(request.body, thread, accountId, now, request.log);
        return serveChatTurn(ctx, request, reply, { route, request: canonical }, new MessagesFormat(sealer, saveTurn));
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
        const accountId = principalOf(request).accountId;
        const thread = readThreadParam(request.body);
        const body = thread?.type === 'continue' ? await continuedTurn(request.body, thread.previousMessageId, accountId, ctx.clock.now()) : request.body;
        const parsed = parseMessagesRequest(body, ctx.reasoningSealer(accountId));
        const model = ctx.resolveModel(chatModelId(ctx.catalog, parsed.model), 'messages');
        checkModelFeatures(model, parsed.request, { maxTokens: 'max_tokens' });
        return { input_tokens: estimateChatInputTokens(parsed.request) };
      },
    );
  };
}
