import type { Dispatcher } from 'undici';
import type { Catalog, Deployment, ModelConfig, ProviderConfig, ResilienceSettings } from '../../config/catalog.ts';
import { Cancellation, type CancelSignal } from '../../shared/cancel-signal.ts';
import type { CanonicalChatRequest, CanonicalChatResponse } from '../canonical/chat.ts';
import { createId } from '../canonical/create-id.ts';
import type { CanonicalEmbeddingRequest, CanonicalEmbeddingResponse } from '../canonical/embeddings.ts';
import type { CanonicalImageRequest, CanonicalImageResponse, GeneratedImage } from '../canonical/images.ts';
import type { CanonicalRerankRequest, CanonicalRerankResponse } from '../canonical/rerank.ts';
import { anthropicChat } from '../providers/anthropic/anthropic-chat.ts';
import { bearer, type ChatAdapter } from '../providers/chat-adapter.ts';
import { buildOpenAIEmbeddingsBody } from '../providers/openai-compatible/build-openai-embeddings-body.ts';
import { buildOpenAIImagesBody } from '../providers/openai-compatible/build-openai-images-body.ts';
import { detectImageMediaType } from '../providers/openai-compatible/detect-image-media-type.ts';
import { openAICompatibleChat } from '../providers/openai-compatible/openai-compatible-chat.ts';
import { parseOpenAIEmbeddingsResponse } from '../providers/openai-compatible/parse-openai-embeddings-response.ts';
import { parseOpenAIError } from '../providers/openai-compatible/parse-openai-error.ts';
import { parseOpenAIImagesResponse } from '../providers/openai-compatible/parse-openai-images-response.ts';
import { buildRerankBody } from '../providers/rerank/build-rerank-body.ts';
import { parseRerankResponse } from '../providers/rerank/parse-rerank-response.ts';
import { createRedactor } from '../redact/create-redactor.ts';
import { toUpstreamError } from './to-upstream-error.ts';
import { countTextTokens, estimateChatInputTokens, estimateOutputTokens, withReasoningTokens } from '../tokens/count-tokens.ts';
import { eventsOfResult } from '../providers/result-events.ts';
import { JsonAnswerEvents } from './json-answer-events.ts';
import { ProviderEventBatches } from './read-provider-events.ts';
import { startBatchedChatStream, type ChatStream } from './start-chat-stream.ts';
import { StopCutEvents } from './stop-cut-events.ts';
import { UpstreamError } from './upstream-error.ts';
import { ProviderFailure } from '../providers/provider-failure.ts';
import { createUpstreamTransport, type BodyReader } from './upstream-transport.ts';
import { createDeploymentHealth, type BreakerStore, type DeploymentHealth } from './deployment-health.ts';
import { runWithFallback, type RequestBudget } from './run-with-fallback.ts';
import { requestForDeployment } from './request-for-deployment.ts';
import { markingParser, markResult } from './reasoning-signer.ts';
import type { UpstreamTarget } from './upstream-target.ts';

/**
 * The gateway's upstream calls, in canonical terms. Every failure is an UpstreamError (an
 * HttpError with a redacted message and `retryable`), except an abort by the caller's signal,
 * which rethrows the signal's reason.
 */
export interface Upstreams {
  chat(target: UpstreamTarget, request: CanonicalChatRequest, signal?: CancelSignal): Promise<CanonicalChatResponse>;
  /** Resolves once the first content arrived (see startChatStream). */
  chatStream(target: UpstreamTarget, request: CanonicalChatRequest, signal?: CancelSignal): Promise<ChatStream>;
  embeddings(target: UpstreamTarget, request: CanonicalEmbeddingRequest, signal?: CancelSignal): Promise<CanonicalEmbeddingResponse>;
  rerank(target: UpstreamTarget, request: CanonicalRerankRequest, signal?: CancelSignal): Promise<CanonicalRerankResponse>;
  images(target: UpstreamTarget, request: CanonicalImageRequest, signal?: CancelSignal): Promise<CanonicalImageResponse>;
  /**
   * One call made resiliently over a chain of models (their deployments balanced, retried, failed
   * over, breakers respected; see runWithFallback). Routes call this, never a target directly.
   */
  run<T>(
    models: readonly ModelConfig[],
    call: (target: UpstreamTarget, signal: CancelSignal | undefined) => Promise<T>,
    signal?: CancelSignal,
    /** The request's time budget, when it makes several calls (one per call otherwise). */
    budget?: RequestBudget,
  ): Promise<{ readonly result: T; readonly target: UpstreamTarget }>;
  /** Breakers, in-flight counts and call events of every deployment (metrics, /admin/upstreams). */
  readonly health: DeploymentHealth;
  /** Closes the connection pools and stops the breaker sync. */
  close(): Promise<void>;
}

export interface UpstreamsOptions {
  /** Route all upstream traffic through this dispatcher instead of per-upstream pools. */
  readonly dispatcher?: Dispatcher;
  /** Tool-call id factory (tests make them predictable). */
  readonly newToolCallId?: () => string;
  /** Where breakers opened here are shared with other instances (Redis); none: this instance only. */
  readonly breakerStore?: BreakerStore | null;
  readonly onBreakerStoreError?: (error: unknown) => void;
  /** Defaults to the catalog's. */
  readonly resilience?: ResilienceSettings;
  readonly now?: () => number;
  readonly random?: () => number;
  /** Largest whole 2xx answer read (UPSTREAM_MAX_ANSWER_BYTES); none: unbounded. */
  readonly maxAnswerBytes?: number;
  /** Largest server-sent event of a stream (UPSTREAM_MAX_EVENT_BYTES); none: unbounded. */
  readonly maxEventBytes?: number;
}

/** A stream's first content did not arrive in time: fail over like any timeout. */
class FirstByteTimeout extends ProviderFailure {
  constructor() {
    super(504, 'the upstream sent nothing in time', { network: 'timeout' });
  }
}

const CHAT_ADAPTERS: Partial<Record<ProviderConfig['type'], ChatAdapter>> = {
  openai: openAICompatibleChat,
  anthropic: anthropicChat,
};

export function createUpstreams(catalog: Catalog, options: UpstreamsOptions = {}): Upstreams {
  const maxAnswerBytes = options.maxAnswerBytes ?? Infinity;
  const maxEventBytes = options.maxEventBytes ?? Infinity;
  const transport = createUpstreamTransport({ ...(options.dispatcher ? { dispatcher: options.dispatcher } : {}), maxAnswerBytes });
  const redact = createRedactor(catalog);
  const newToolCallId = options.newToolCallId ?? (() => createId('call_'));
  const now = options.now ?? Date.now;
  const settings = options.resilience ?? catalog.resilience;
  const deployments = new Map<string, Deployment>();
  for (const m of catalog.models.values()) for (const d of m.deployments) deployments.set(d.key, d);
  const health = createDeploymentHealth({
    settings: settings.breaker,
    deployments: [...deployments.values()],
    now,
    store: options.breakerStore ?? null,
    ...(options.onBreakerStoreError ? { onStoreError: options.onBreakerStoreError } : {}),
  });
  const fallbackDeps = { settings, health, now, random: options.random ?? Math.random };

  /** Runs an upstream call; whatever fails comes out as an UpstreamError or the caller's abort. */
  async function guarded<T>(target: UpstreamTarget, signal: CancelSignal | undefined, run: () => Promise<T>): Promise<T> {
    if (!target.deployment.provider.configured) {
      throw new UpstreamError(503, `model ${target.model.id} is not available`, true);
    }
    try {
      return await run();
    } catch (e) {
      if (signal?.aborted) throw signal.reason ?? e;
      throw toUpstreamError(e, redact, target.model.id);
    }
  }

  function chatAdapter(target: UpstreamTarget): ChatAdapter {
    const adapter = CHAT_ADAPTERS[target.deployment.provider.type];
    if (!adapter) throw new Error(`a ${target.deployment.provider.type} provider cannot serve chat`);
    return adapter;
  }

  function requireType(target: UpstreamTarget, types: readonly ProviderConfig['type'][], what: string): void {
    if (!types.includes(target.deployment.provider.type)) {
      throw new Error(`a ${target.deployment.provider.type} provider cannot serve ${what}`);
    }
  }

  return {
    chat(target, request, signal) {
      const adapter = chatAdapter(target);
      return guarded(target, signal, async () => {
        const { provider, model: upstreamModel } = target.deployment;
        const call = adapter.prepare(provider, upstreamModel, target.model, requestForDeployment(target.deployment, request), false);
        const answer = await transport.postJson(provider, { path: call.path, headers: call.headers, body: call.body, signal }, adapter.parseError);
        // Cut while parsing, before usage is estimated: an unreported count is of the text the client gets.
        const result = markResult(adapter.parseResponse(answer, call.jsonToolName, newToolCallId, call.cutAt), upstreamModel);
        // Object.assign rather than a spread with a new key: see upstream-transport.ts.
        if (result.usage) return Object.assign({}, result, { usage: withReasoningTokens(result.usage, result.reasoning), usageEstimated: false });
        return Object.assign({}, result, {
          usage: withReasoningTokens({ inputTokens: estimateChatInputTokens(request), cachedInputTokens: 0, outputTokens: estimateOutputTokens(result.refusal === undefined ? result : { ...result, text: result.text + result.refusal }) }, result.reasoning),
          usageEstimated: true,
        });
      });
    },

    chatStream(target, request, signal) {
      const adapter = chatAdapter(target);
      return guarded(target, signal, async () => {
        const { provider, model: upstreamModel } = target.deployment;
        const call = adapter.prepare(provider, upstreamModel, target.model, requestForDeployment(target.deployment, request), true);
        // Until the first content arrives the call runs on a timer of its own: a stream that has
        // not started in time fails over like any timeout (the transport bounds the headers).
        // One Cancellation, aborted by the timer or by the client's signal through a listener:
        // AbortSignal.any made a composite signal with weak references per stream, a visible
        // share of a stream's CPU and garbage. The listener lives as long as the client's
        // signal, which is the request's own.
        const callAbort = new Cancellation();
        const timer = setTimeout(() => callAbort.abort(new FirstByteTimeout()), provider.firstByteTimeoutMs);
        if (signal) {
          if (signal.aborted) callAbort.abort(signal.reason);
          else signal.addEventListener('abort', () => callAbort.abort(signal.reason), { once: true });
        }
        try {
          return await startStream(call, callAbort);
        } finally {
          clearTimeout(timer);
        }
      });

      async function startStream(call: ReturnType<ChatAdapter['prepare']>, callSignal: CancelSignal): Promise<ChatStream> {
        const { provider, model: upstreamModel } = target.deployment;
        const body = await transport.postStream(provider, { path: call.path, headers: call.headers, body: call.body, signal: callSignal }, adapter.parseError);
        const asEventStream = (reader: BodyReader) => {
          const batches = new ProviderEventBatches(reader, markingParser(adapter.createStreamParser(call.jsonToolName, newToolCallId), upstreamModel), callSignal, { textRuns: true, idleMs: provider.idleTimeoutMs, maxEventBytes });
          return call.cutAt ? new StopCutEvents(batches, call.cutAt) : batches;
        };
        // A whole answer is cut by its parser, which sees its blocks in order (its events give all
        // text before the calls, so cutting them again could match across a call).
        const events = body.json
          ? new JsonAnswerEvents(body, (json) => eventsOfResult(markResult(adapter.parseResponse(json, call.jsonToolName, newToolCallId, call.cutAt), upstreamModel)), asEventStream, callSignal, maxAnswerBytes)
          : asEventStream(body);
        return startBatchedChatStream(events, {
          estimateInput: () => estimateChatInputTokens(request),
          mapError: (e) => (signal?.aborted ? (signal.reason ?? e) : toUpstreamError(e, redact, target.model.id)),
        });
      }
    },

    embeddings(target, request, signal) {
      requireType(target, ['openai'], 'embeddings');
      return guarded(target, signal, async () => {
        const { provider, model: upstreamModel } = target.deployment;
        const answer = await transport.postJson(
          provider,
          { path: '/embeddings', headers: bearer(provider), body: buildOpenAIEmbeddingsBody(request, upstreamModel), signal },
          parseOpenAIError,
        );
        const { embeddings, usage } = parseOpenAIEmbeddingsResponse(answer, request.input.length);
        if (usage) return { embeddings, usage, usageEstimated: false };
        const inputTokens = request.input.reduce((n, s) => n + countTextTokens(s), 0);
        return { embeddings, usage: { inputTokens, cachedInputTokens: 0, outputTokens: 0 }, usageEstimated: true };
      });
    },

    rerank(target, request, signal) {
      requireType(target, ['rerank'], 'rerank');
      return guarded(target, signal, async () => {
        const { provider, model: upstreamModel } = target.deployment;
        const answer = await transport.postJson(
          provider,
          { path: '/rerank', headers: bearer(provider), body: buildRerankBody(request, upstreamModel), signal },
          parseOpenAIError,
        );
        const { results, inputTokens } = parseRerankResponse(answer, request.documents.length, request.topN);
        if (inputTokens !== null) return { results, usage: { inputTokens, cachedInputTokens: 0, outputTokens: 0 }, usageEstimated: false };
        // Cohere reports search units, not tokens: count the query against every document.
        const q = countTextTokens(request.query);
        const estimate = request.documents.reduce((n, d) => n + q + countTextTokens(d), 0);
        return { results, usage: { inputTokens: estimate, cachedInputTokens: 0, outputTokens: 0 }, usageEstimated: true };
      });
    },

    images(target, request, signal) {
      requireType(target, ['images', 'openai'], 'image generation');
      return guarded(target, signal, async () => {
        const { provider, model: upstreamModel } = target.deployment;
        const answer = await transport.postJson(
          provider,
          { path: '/images/generations', headers: bearer(provider), body: buildOpenAIImagesBody(request, upstreamModel), signal },
          parseOpenAIError,
        );
        const images = await Promise.all(
          parseOpenAIImagesResponse(answer).map(async (img): Promise<GeneratedImage> => {
            const bytes = img.base64 !== undefined ? Buffer.from(img.base64, 'base64') : await transport.download(img.url!, provider.timeoutMs, signal);
            return {
              base64: img.base64 ?? bytes.toString('base64'),
              mediaType: detectImageMediaType(bytes),
              // Written by the upstream, which names itself in it ("as generated by gpt-image-1").
              ...(img.revisedPrompt !== undefined ? { revisedPrompt: redact(img.revisedPrompt, target.model.id) } : {}),
            };
          }),
        );
        return { images };
      });
    },

    run: (models, call, signal, budget) => runWithFallback(fallbackDeps, models, call, signal, budget),
    health,

    async close() {
      health.close();
      await transport.close();
    },
  };
}
