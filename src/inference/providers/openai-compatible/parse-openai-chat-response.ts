import { createId } from '../../canonical/create-id.ts';
import type { ToolCall } from '../../canonical/chat.ts';
import { ProviderFailure } from '../provider-failure.ts';
import type { ProviderChatResult } from '../provider-stream.ts';
import { convertOpenAIUsage } from './convert-openai-usage.ts';
import { failIfErrorFinish, mapOpenAIFinishReason } from './map-openai-finish-reason.ts';
import { readErrorInAnswer } from './parse-openai-error.ts';

interface OpenAIChatResponse {
  choices?: {
    message?: {
      content?: string | null;
      refusal?: string | null;
      reasoning_content?: string | null;
      reasoning?: string | null;
      tool_calls?: { function?: { name?: string; arguments?: string } }[] | null;
    };
    finish_reason?: string | null;
  }[];
  usage?: unknown;
  error?: unknown;
  object?: unknown;
}

/** Reads the fields the service uses from a chat.completion; tool-call ids are reissued. */
export function parseOpenAIChatResponse(json: unknown, newToolCallId: () => string = () => createId('call_')): ProviderChatResult {
  const body = (json ?? {}) as OpenAIChatResponse;
  const err = readErrorInAnswer(body);
  if (err) throw new ProviderFailure(err.status ?? 502, err.message);
  const choice = body.choices?.[0];
  if (!choice?.message) throw new ProviderFailure(502, 'the upstream answer has no choices');
  failIfErrorFinish(choice.finish_reason);
  const toolCalls: ToolCall[] = (choice.message.tool_calls ?? []).map((c) => ({
    id: newToolCallId(),
    name: c.function?.name ?? '',
    arguments: c.function?.arguments || '{}',
  }));
  return {
    text: choice.message.content ?? '',
    // An empty refusal is none (some servers send `refusal: ""` on every answer).
    ...(choice.message.refusal ? { refusal: choice.message.refusal } : {}),
    // Servers that expose reasoning put it in `reasoning_content` (DeepSeek, vLLM) or `reasoning`.
    reasoning: choice.message.reasoning_content ?? choice.message.reasoning ?? '',
    toolCalls,
    finishReason: mapOpenAIFinishReason(choice.finish_reason),
    usage: convertOpenAIUsage(body.usage),
  };
}
