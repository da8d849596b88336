import { createId } from '../../canonical/create-id.ts';
import type { FinishReason } from '../../canonical/chat.ts';
import { ProviderFailure } from '../provider-failure.ts';
import { parseEvents, type ProviderStreamEvent, type ProviderStreamParser, type SseEvent } from '../provider-stream.ts';
import { createStringFieldTemplate } from '../string-field-template.ts';
import { convertOpenAIUsage } from './convert-openai-usage.ts';
import { LaterToolCalls } from './later-tool-calls.ts';
import { failIfErrorFinish, mapOpenAIFinishReason } from './map-openai-finish-reason.ts';
import { readErrorInAnswer } from './parse-openai-error.ts';

interface OpenAIChunk {
  choices?: {
    delta?: {
      content?: string | null;
      refusal?: string | null;
      reasoning_content?: string | null;
      reasoning?: string | null;
      tool_calls?: { index?: number; function?: { name?: string | null; arguments?: string | null } | null }[] | null;
    } | null;
    finish_reason?: string | null;
  }[];
  usage?: unknown;
  error?: unknown;
  object?: unknown;
}

/**
 * Parses a chat.completion.chunk stream. Tool calls are keyed by the upstream's `index` (ids and
 * names arrive only on a call's first chunk) and renumbered in order of appearance with fresh ids;
 * calls whose fragments come interleaved are given one after another (later-tool-calls.ts).
 * The stream is complete when `[DONE]` or a finish reason was seen; a stream cut before that is an
 * upstream failure (the caller still bills what arrived). A plain content chunk like the last one
 * parsed in full is read from its bytes (see createStringFieldTemplate).
 */
export function createOpenAIChatStreamParser(newToolCallId: () => string = () => createId('call_')): ProviderStreamParser {
  const toolIndex = new Map<number, number>();
  const later = new LaterToolCalls();
  const content = createStringFieldTemplate('content');
  let finish: FinishReason | null = null;
  let done = false;
  return {
    push(event, out) {
      const text = content.match(event.data);
      if (text !== undefined) {
        if (later.holding) later.release(out);
        if (text !== '') out.push({ type: 'text-delta', text });
        return false;
      }
      if (event.data === '[DONE]') {
        done = true;
        return true;
      }
      const before = out.length;
      let chunk: OpenAIChunk;
      try {
        chunk = JSON.parse(event.data) as OpenAIChunk;
      } catch {
        throw new ProviderFailure(502, 'the upstream sent a malformed stream chunk');
      }
      const err = readErrorInAnswer(chunk);
      if (err) throw new ProviderFailure(err.status ?? 502, err.message);
      const choice = chunk.choices?.[0];
      const delta = choice?.delta;
      const reasoning = delta?.reasoning_content ?? delta?.reasoning;
      if ((reasoning || delta?.content) && later.holding) later.release(out);
      if (reasoning) out.push({ type: 'reasoning-delta', text: reasoning });
      if (delta?.content) out.push({ type: 'text-delta', text: delta.content });
      // A refusal chunk is never learned as the text template (it pushes no text delta alone).
      if (delta?.refusal) {
        if (later.holding) later.release(out);
        out.push({ type: 'refusal-delta', text: delta.refusal });
      }
      for (const call of delta?.tool_calls ?? []) {
        const upstreamIndex = call.index ?? 0;
        let index = toolIndex.get(upstreamIndex);
        if (index === undefined) {
          index = toolIndex.size;
          toolIndex.set(upstreamIndex, index);
          later.start(index, newToolCallId(), call.function?.name ?? '', out);
        }
        const args = call.function?.arguments;
        if (args) later.fragment(index, args, out);
      }
      if (delta?.tool_calls) later.endChunk(out);
      if (choice?.finish_reason) {
        failIfErrorFinish(choice.finish_reason);
        finish = mapOpenAIFinishReason(choice.finish_reason);
        later.release(out);
      }
      const usage = convertOpenAIUsage(chunk.usage);
      if (usage) out.push({ type: 'reported-usage', usage });
      // It carried content and nothing that changes the stream's state: later chunks that differ
      // from it only in their content are read without parsing.
      if (out.length === before + 1 && out[before]!.type === 'text-delta' && !choice?.finish_reason) content.learn(event.data, delta!.content!);
      return false;
    },
    end(out) {
      if (finish === null && !done) throw new ProviderFailure(502, 'the upstream stream ended before the answer was complete');
      later.release(out);
      out.push({ type: 'finish', reason: finish ?? 'stop' });
    },
    // While calls are held, text goes through push(), which gives them out first.
    textTemplate: () => (later.holding ? null : content.sse('')),
  };
}

/** The same over an event iterable (tests, and anything not read in batches). */
export async function* parseOpenAIChatStream(
  events: AsyncIterable<SseEvent>,
  newToolCallId: () => string = () => createId('call_'),
): AsyncGenerator<ProviderStreamEvent> {
  yield* parseEvents(createOpenAIChatStreamParser(newToolCallId), events);
}
