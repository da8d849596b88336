import type { ChatAdapter } from '../chat-adapter.ts';
import { defaultAnthropicMaxTokens } from './anthropic-max-tokens.ts';
import { stopsToCut } from './anthropic-stop-sequences.ts';
import { buildAnthropicMessagesBody } from './build-anthropic-messages-body.ts';
import { parseAnthropicError } from './parse-anthropic-error.ts';
import { parseAnthropicResponse } from './parse-anthropic-response.ts';
import { createAnthropicStreamParser } from './parse-anthropic-stream.ts';

export const ANTHROPIC_VERSION = '2023-06-01';

/**
 * Literals, not a spread followed by a key: on Node 20 that cost some 4 µs per request here
 * (docs/bench-gateway.md, "Session 8" and "Session 11").
 */
function headersOf(apiKey: string | null): Record<string, string> {
  return apiKey ? { 'x-api-key': apiKey, 'anthropic-version': ANTHROPIC_VERSION } : { 'anthropic-version': ANTHROPIC_VERSION };
}

/**
 * The Anthropic Messages API. The base URL is the API root (`https://api.anthropic.com`); one that
 * already ends in `/v1` is accepted too.
 */
export const anthropicChat: ChatAdapter = {
  prepare(provider, upstreamModel, model, request, stream) {
    const { body, jsonToolName } = buildAnthropicMessagesBody(
      request,
      upstreamModel,
      stream,
      defaultAnthropicMaxTokens(upstreamModel, model.maxOutput),
    );
    const path = /\/v1\/?$/.test(provider.baseUrl) ? '/messages' : '/v1/messages';
    const cutAt = stopsToCut(request.stop);
    return cutAt === null ? { path, headers: headersOf(provider.apiKey), body, jsonToolName } : { path, headers: headersOf(provider.apiKey), body, jsonToolName, cutAt };
  },
  parseResponse: parseAnthropicResponse,
  createStreamParser: createAnthropicStreamParser,
  parseError: parseAnthropicError,
};
