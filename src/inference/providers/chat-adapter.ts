import type { ModelConfig, ProviderConfig } from '../../config/catalog.ts';
import type { CanonicalChatRequest } from '../canonical/chat.ts';
import type { ErrorBodyReader } from './provider-failure.ts';
import type { ProviderChatResult, ProviderStreamParser } from './provider-stream.ts';

export interface PreparedChatCall {
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: unknown;
  /** The structured-output tool's name, when the adapter emulates JSON output with a tool. */
  readonly jsonToolName: string | null;
  /**
   * Stop sequences the upstream was not given (its API refuses them): the answer is cut at the
   * first of these, by parseResponse for a whole answer and by the upstream layer for a stream.
   * Absent when the upstream takes the request's own.
   */
  readonly cutAt?: readonly string[];
}

/** What the upstream layer needs from a chat provider: building the call and reading the answer. */
export interface ChatAdapter {
  prepare(
    provider: ProviderConfig,
    upstreamModel: string,
    model: ModelConfig,
    request: CanonicalChatRequest,
    stream: boolean,
  ): PreparedChatCall;
  /** `cutAt` as prepare() gave it: the answer is cut at the first of them (see PreparedChatCall). */
  parseResponse(json: unknown, jsonToolName: string | null, newToolCallId: () => string, cutAt?: readonly string[]): ProviderChatResult;
  createStreamParser(jsonToolName: string | null, newToolCallId: () => string): ProviderStreamParser;
  /** The message of a non-2xx response body (and the status it stands for, when not its own). */
  parseError: ErrorBodyReader;
}

/** `Authorization: Bearer` as OpenAI-compatible, Cohere and Jina APIs take it. */
export function bearer(provider: ProviderConfig): Record<string, string> {
  return provider.apiKey ? { authorization: `Bearer ${provider.apiKey}` } : {};
}
