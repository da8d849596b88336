import type { FinishDetail, FinishReason } from '../../canonical/chat.ts';

export function mapAnthropicFinishReason(reason: unknown): FinishReason {
  switch (reason) {
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return 'length';
    case 'tool_use':
      return 'tool_calls';
    case 'refusal':
      return 'content_filter';
    default:
      // end_turn, stop_sequence, pause_turn, and reasons added later.
      return 'stop';
  }
}

/**
 * What the stop reason says beyond the canonical reason: the stop sequence that matched, and a
 * `length` that was the context window, which a Messages client is told as such (the OpenAI
 * protocols answer `length` for both).
 */
export function anthropicFinishDetail(reason: unknown, stopSequence: unknown): FinishDetail {
  if (reason === 'stop_sequence' && typeof stopSequence === 'string') return { stopSequence };
  if (reason === 'model_context_window_exceeded') return { contextWindowExceeded: true };
  return {};
}
