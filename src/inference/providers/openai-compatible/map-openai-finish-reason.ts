import type { FinishReason } from '../../canonical/chat.ts';
import { ProviderFailure } from '../provider-failure.ts';

/**
 * Routers (OpenRouter) end a choice whose provider failed with `finish_reason: "error"`, with or
 * without an `error` object beside it, inside a 200: the answer failed, it did not stop. Read as
 * any other 502, it falls over before the first byte and ends a started stream with an error.
 */
export function failIfErrorFinish(reason: unknown): void {
  if (reason === 'error') throw new ProviderFailure(502, 'the upstream failed while answering');
}

export function mapOpenAIFinishReason(reason: unknown): FinishReason {
  switch (reason) {
    case 'length':
      return 'length';
    case 'tool_calls':
    case 'function_call':
      return 'tool_calls';
    case 'content_filter':
      return 'content_filter';
    default:
      // `stop`, and whatever an OpenAI-compatible server invents (`eos`, `end_turn`, null).
      return 'stop';
  }
}
