import { bearer, type ChatAdapter } from '../chat-adapter.ts';
import { buildOpenAIChatBody } from './build-openai-chat-body.ts';
import { parseOpenAIChatResponse } from './parse-openai-chat-response.ts';
import { createOpenAIChatStreamParser } from './parse-openai-chat-stream.ts';
import { parseOpenAIError } from './parse-openai-error.ts';

/** Any OpenAI-compatible /chat/completions upstream; the base URL includes its version (`.../v1`). */
export const openAICompatibleChat: ChatAdapter = {
  prepare(provider, upstreamModel, _model, request, stream) {
    return {
      path: '/chat/completions',
      headers: bearer(provider),
      body: buildOpenAIChatBody(request, upstreamModel, stream),
      jsonToolName: null,
    };
  },
  parseResponse: (json, _jsonToolName, newToolCallId) => parseOpenAIChatResponse(json, newToolCallId),
  createStreamParser: (_jsonToolName, newToolCallId) => createOpenAIChatStreamParser(newToolCallId),
  parseError: parseOpenAIError,
};
