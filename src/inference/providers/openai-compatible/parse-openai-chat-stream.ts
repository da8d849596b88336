import { createId } from '../../canonical/create-id.ts';
import type { FinishReason } from '../../canonical/chat.ts';
import { ProviderFailure } from '../provider-failure.ts';
import type { ProviderStreamEvent, SseEvent } from '../provider-stream.ts';
import { convertOpenAIUsage } from './convert-openai-usage.ts';
import { mapOpenAIFinishReason } from './map-openai-finish-reason.ts';
import { readOpenAIErrorObject } from './parse-openai-error.ts';

interface OpenAIChunk {
  choices?: {
    delta?: {
      content?: string | null;
      tool_calls?: { index?: number; function?: { name?: string | null; arguments?: string | null } | null }[] | null;
    } | null;
    finish_reason?: string | null;
  }[];
  usage?: unknown;
  error?: unknown;
}

/**
 * Parses a chat.completion.chunk stream. Tool calls are keyed by the upstream's `index` (ids and
 * names arrive only on a call's first chunk) and renumbered in order of appearance with fresh ids.
 * The stream is complete when `[DONE]` or a finish reason was seen; a stream cut before that is an
 * upstream failure (the caller still bills what arrived).
 */
export async function* parseOpenAIChatStream(
  events: AsyncIterable<SseEvent>,
  newToolCallId: () => string = () => createId('call_'),
): AsyncGenerator<ProviderStreamEvent> {
  const toolIndex = new Map<number, number>();
  let finish: FinishReason | null = null;
  let done = false;
  for await (const event of events) {
    if (event.data === '[DONE]') {
      done = true;
      break;
    }
    let chunk: OpenAIChunk;
    try {
      chunk = JSON.parse(event.data) as OpenAIChunk;
    } catch {
      throw new ProviderFailure(502, 'the upstream sent a malformed stream chunk');
    }
    const err = readOpenAIErrorObject(chunk.error);
    if (err) throw new ProviderFailure(err.status ?? 502, err.message);
    const choice = chunk.choices?.[0];
    const delta = choice?.delta;
    if (delta?.content) yield { type: 'text-delta', text: delta.content };
    for (const call of delta?.tool_calls ?? []) {
      const upstreamIndex = call.index ?? 0;
      let index = toolIndex.get(upstreamIndex);
      if (index === undefined) {
        index = toolIndex.size;
        toolIndex.set(upstreamIndex, index);
        yield { type: 'tool-call-start', index, id: newToolCallId(), name: call.function?.name ?? '' };
      }
      const args = call.function?.arguments;
      if (args) yield { type: 'tool-call-delta', index, argumentsDelta: args };
    }
    if (choice?.finish_reason) finish = mapOpenAIFinishReason(choice.finish_reason);
    const usage = convertOpenAIUsage(chunk.usage);
    if (usage) yield { type: 'reported-usage', usage };
  }
  if (finish === null && !done) throw new ProviderFailure(502, 'the upstream stream ended before the answer was complete');
  yield { type: 'finish', reason: finish ?? 'stop' };
}
