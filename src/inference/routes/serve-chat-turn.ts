import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Endpoint } from '../../config/catalog.ts';
import { estimateCharge } from '../billing/estimate.ts';
import { CHAT_INPUT_MARGIN_TOKENS, estimateChatInput } from '../billing/estimate-input.ts';
import type { CanonicalChatRequest, CanonicalChatResponse } from '../canonical/chat.ts';
import { createId } from '../canonical/create-id.ts';
import type { StreamEncoder, TurnIdentity } from '../formats/stream-encoder.ts';
import type { InferenceContext } from '../inference-context.ts';
import type { ModelRoute } from '../routing/route-model.ts';
import type { UpstreamTarget } from '../upstream/upstream-target.ts';
import { answeredModel, failureStatus, withCreditHold, type CreditHold } from './credit-hold.ts';
import { knownAscii, startSse, type SseResponse } from './sse-response.ts';

/** A client protocol a chat turn answers in (chat completions, completions, messages). */
export interface ChatTurnFormat {
  readonly endpoint: Endpoint;
  /** `chatcmpl-`, `cmpl-`, `msg_`. */
  readonly idPrefix: string;
  formatResponse(response: CanonicalChatResponse, identity: TurnIdentity): object;
  createStreamEncoder(identity: TurnIdentity): StreamEncoder;
  /** The failure as this protocol states it, before or after the stream began (HoldTerms.clientError). */
  readonly clientError?: (error: unknown) => unknown;
  /**
   * Called once an answer came whole (a non-streamed one formatted, a stream finished without
   * failure), before the client has its end: what the answer must leave behind for the client's
   * next request (a message thread's turn) is written by then.
   */
  answered?(): Promise<void>;
}

export interface ChatTurn {
  readonly route: ModelRoute;
  readonly request: CanonicalChatRequest;
}

/**
 * Serves one chat turn, streamed or not, after the route's checks: holds credits, calls the route's
 * executors resiliently and answers in the client's format with a service id and the billed brand
 * id (the requested one; svc-auto's choice; the model of a caller's fallback list that served). Returns the body of a non-streamed answer; a streamed one is written here
 * and the function returns undefined once the response ended.
 */
export async function serveChatTurn(
  ctx: InferenceContext,
  request: FastifyRequest,
  reply: FastifyReply,
  turn: ChatTurn,
  format: ChatTurnFormat,
): Promise<object | undefined> {
  const terms = {
    route: turn.route,
    endpoint: format.endpoint,
    clientError: format.clientError,
    charge: estimateCharge(turn.route.billed, {
      inputTokens: estimateChatInput(turn.request),
      inputMarginTokens: CHAT_INPUT_MARGIN_TOKENS,
      maxOutputTokens: turn.request.maxTokens ?? null,
    }),
  };
  const identity = (target: UpstreamTarget): TurnIdentity => ({
    id: createId(format.idPrefix),
    model: answeredModel(turn.route, target),
    created: Math.floor(ctx.clock.now() / 1000),
  });

  // No more output than the hold pays for: the balance can never go below zero.
  const upstreamRequest = (hold: CreditHold): CanonicalChatRequest =>
    hold.maxOutputTokens !== null && (turn.request.maxTokens === undefined || hold.maxOutputTokens < turn.request.maxTokens)
      ? Object.assign({}, turn.request, { maxTokens: hold.maxOutputTokens })
      : turn.request;

  if (!turn.request.stream) {
    return withCreditHold(ctx, request, reply, terms, async (hold) => {
      const upstream = upstreamRequest(hold);
      const { result, target } = await hold.attempt((t, signal) => ctx.upstreams.chat(t, upstream, signal));
      hold.record(result.usage, result.usageEstimated, target);
      const body = format.formatResponse(result, identity(target));
      if (format.answered) await format.answered();
      return body;
    });
  }

  return withCreditHold(ctx, request, reply, terms, async (hold) => {
    // Resolves once output started: failures before it can still fall back or answer a status.
    const upstream = upstreamRequest(hold);
    const { result: stream, target } = await hold.attempt((t, signal) => ctx.upstreams.chatStream(t, upstream, signal));
    const who = identity(target);
    const encoder = format.createStreamEncoder(who);
    // An encoder writes a run's texts inside its own framing, of our ids and the brand id.
    const runsAscii = knownAscii(who.model);
    const sse = startSse(reply);
    sendChecked(sse, encoder.start());
    let failure: unknown = null;
    try {
      // The parts of one upstream read leave in one write.
      const batches = encoder.encodeRun ? stream.batches({ textRuns: true }) : stream.batches();
      for await (const parts of batches) {
        let text = '';
        let ascii = true;
        for (const part of parts) {
          if (part.type === 'text-run') {
            text += encoder.encodeRun!(part.run);
            ascii &&= runsAscii && part.run.ascii;
          } else {
            const encoded = encoder.encode(part);
            text += encoded;
            ascii &&= knownAscii(encoded);
          }
        }
        sse.send(text, ascii);
        if (sse.full) await sse.drained();
        // Leaving the loop closes the upstream request (the stream's iterator returns).
        if (hold.signal.aborted) break;
      }
    } catch (e) {
      failure = format.clientError ? format.clientError(e) : e;
    }
    let status = 200;
    if (hold.signal.aborted) status = 499;
    else if (failure !== null) {
      status = failureStatus(failure);
      if (status >= 500) request.log.warn({ err: failure }, 'stream failed after it started');
      sendChecked(sse, encoder.fail(failure));
    }
    // Billed for what the upstream produced, whether the stream ended, failed or was abandoned:
    // its reported usage, or tokenizer counts for what it did not report.
    const { usage, estimated } = stream.usage();
    hold.record(usage, estimated, target);
    hold.finish(status);
    if (status === 200 && format.answered) await format.answered();
    sendChecked(sse, encoder.end());
    sse.end();
    return undefined;
  });
}

/** Sends text whose ASCII-ness nothing upstream of it told. */
function sendChecked(sse: SseResponse, text: string): void {
  sse.send(text, knownAscii(text));
}
