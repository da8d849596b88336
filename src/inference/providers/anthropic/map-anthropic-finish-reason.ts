import type { FinishReason } from '../../canonical/chat.ts';

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
