import type { FastifyReply, FastifyRequest } from 'fastify';
import { estimateCharge } from '../billing/estimate.ts';
import { estimateChatInput } from '../billing/estimate-input.ts';
import type { CanonicalChatRequest, CanonicalChatResponse, StreamPart } from '../canonical/chat.ts';
import { createId } from '../canonical/create-id.ts';
import type { CompletionIdentity } from '../formats/openai-chat/format-chat-completion.ts';
import { formatOpenAIStreamError } from '../formats/openai-chat/format-openai-stream-error.ts';
import { encodeSseData, SSE_DONE } from '../formats/sse.ts';
import { principalOf } from '../http/principal.ts';
import type { InferenceContext } from '../inference-context.ts';
import type { ModelRoute } from '../routing/route-model.ts';
import type { UpstreamTarget } from '../upstream/create-upstreams.ts';
import type { ChatStream } from '../upstream/start-chat-stream.ts';
import { tryDeployments } from '../upstream/try-deployments.ts';
import { billedCall } from './billed-call.ts';
import { abortOnClientClose } from './client-abort.ts';
import { failureStatus, releaseQuietly, settleOnce } from './settlement.ts';
import { startSse } from './sse-response.ts';

/** The client format a chat turn answers in (chat completions, or legacy completions). */
export interface ChatTurnFormat {
  readonly endpoint: 'chat.completions' | 'completions';
  /** `chatcmpl-` or `cmpl-`. */
  readonly idPrefix: string;
  formatResponse(response: CanonicalChatResponse, identity: CompletionIdentity): object;
  createChunkFormatter(options: CompletionIdentity & { readonly includeUsage: boolean }): { format(part: StreamPart): object[] };
}

export interface ChatTurn {
  readonly route: ModelRoute;
  readonly request: CanonicalChatRequest;
  /** `stream_options.include_usage`. */
  readonly includeUsage: boolean;
}

/**
 * Serves one chat turn, streamed or not, after the route's checks: reserves credits, calls the
 * served model's deployments with fallback and answers in the client's format with a service id
 * and the requested brand id. Returns the body of a non-streamed answer; a streamed one is
 * written here and the function returns undefined once the response ended.
 */
export async function serveChatTurn(
  ctx: InferenceContext,
  request: FastifyRequest,
  reply: FastifyReply,
  turn: ChatTurn,
  format: ChatTurnFormat,
): Promise<object | undefined> {
  const charge = estimateCharge(turn.route.requested, { inputTokens: estimateChatInput(turn.request), maxOutputTokens: turn.request.maxTokens ?? null });
  const identity = (): CompletionIdentity => ({
    id: createId(format.idPrefix),
    model: turn.route.requested.id,
    created: Math.floor(ctx.clock.now() / 1000),
  });

  if (!turn.request.stream) {
    const { result } = await billedCall({
      ctx,
      request,
      reply,
      route: turn.route,
      endpoint: format.endpoint,
      charge,
      call: (target, signal) => ctx.upstreams.chat(target, turn.request, signal),
      usageOf: (r) => ({ usage: r.usage, estimated: r.usageEstimated }),
    });
    return format.formatResponse(result, identity());
  }

  const reservation = await ctx.billing.reserve({
    principal: principalOf(request),
    model: turn.route.requested,
    endpoint: format.endpoint,
    requestId: request.id,
    charge,
  });
  const settle = settleOnce(ctx.billing, reservation, turn.route);
  const abort = abortOnClientClose(reply);
  let tried: UpstreamTarget | null = null;
  let started: { result: ChatStream; target: UpstreamTarget };
  try {
    // Resolves once output started: failures before it can still fall back or answer a status.
    started = await tryDeployments(turn.route.upstreamModel, (target) => {
      tried = target;
      return ctx.upstreams.chatStream(target, turn.request, abort.signal);
    });
  } catch (e) {
    abort.dispose();
    await releaseQuietly(settle, failureStatus(e), tried, request.log);
    throw e;
  }
  const { result: stream, target } = started;
  const formatter = format.createChunkFormatter({ ...identity(), includeUsage: turn.includeUsage });
  const sse = startSse(reply);

  let failure: unknown = null;
  try {
    for await (const part of stream) {
      for (const chunk of formatter.format(part)) sse.send(encodeSseData(chunk));
      if (sse.full) await sse.drained();
      // Leaving the loop closes the upstream request (the stream's iterator returns).
      if (abort.signal.aborted) break;
    }
  } catch (e) {
    failure = e;
  }
  abort.dispose();
  const clientGone = abort.signal.aborted;
  let status = 200;
  if (clientGone) status = 499;
  else if (failure !== null) {
    status = failureStatus(failure);
    if (status >= 500) request.log.warn({ err: failure }, 'stream failed after it started');
    sse.send(encodeSseData(formatOpenAIStreamError(failure)));
  }
  // Billed for what the upstream produced, whether the stream ended, failed or was abandoned:
  // its reported usage, or tokenizer counts for what it did not report.
  const { usage, estimated } = stream.usage();
  try {
    await settle.charge({ usage, estimated, status, target });
  } catch (e) {
    request.log.error({ err: e }, 'settling a stream failed; its hold stays until the stale-hold sweep');
  }
  sse.send(SSE_DONE);
  sse.end();
  return undefined;
}
