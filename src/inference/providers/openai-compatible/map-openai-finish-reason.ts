import type { FinishReason } from '../../canonical/chat.ts';

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
