import type { CanonicalChatResponse, FinishReason, ReasoningBlock, StreamPart, ToolCall } from './chat.ts';
import { ZERO_USAGE, type Usage } from './usage.ts';

/**
 * Gathers a streamed answer's parts into the answer a non-streamed request would have had, for
 * what must keep a streamed answer whole (a message thread's turn). Parts come as the stream
 * gives them (chat.ts, StreamPart).
 */
export class StreamCollector {
  private text = '';
  private reasoning = '';
  private readonly blocks: ReasoningBlock[] = [];
  private thinking: string | null = null;
  private readonly calls: { id: string; name: string; arguments: string }[] = [];
  private finish: { reason: FinishReason; stopSequence?: string } | null = null;
  private usage: Usage = ZERO_USAGE;
  private estimated = false;

  add(part: StreamPart): void {
    switch (part.type) {
      case 'text-delta':
        this.text += part.text;
        break;
      case 'reasoning-delta':
        this.reasoning += part.text;
        if (part.redacted !== undefined) {
          this.closeThinking(undefined);
          this.blocks.push({ type: 'redacted_thinking', data: part.redacted });
          break;
        }
        this.thinking = (this.thinking ?? '') + part.text;
        if (part.signature !== undefined) this.closeThinking(part.signature);
        break;
      case 'tool-call-start':
        this.calls[part.index] = { id: part.id, name: part.name, arguments: '' };
        break;
      case 'tool-call-delta': {
        const call = this.calls[part.index];
        if (call) call.arguments += part.argumentsDelta;
        break;
      }
      case 'finish':
        this.finish = part.stopSequence === undefined ? { reason: part.reason } : { reason: part.reason, stopSequence: part.stopSequence };
        break;
      case 'usage':
        this.usage = part.usage;
        this.estimated = part.estimated;
        break;
    }
  }

  private closeThinking(signature: string | undefined): void {
    if (this.thinking === null) return;
    this.blocks.push(signature === undefined ? { type: 'thinking', thinking: this.thinking } : { type: 'thinking', thinking: this.thinking, signature });
    this.thinking = null;
  }

  /** The whole answer, or null when the stream has not finished (no `finish` part yet). */
  response(): CanonicalChatResponse | null {
    if (this.finish === null) return null;
    this.closeThinking(undefined);
    const toolCalls: ToolCall[] = this.calls.filter((c) => c !== undefined);
    return {
      text: this.text,
      reasoning: this.reasoning,
      reasoningBlocks: this.blocks.slice(),
      toolCalls,
      finishReason: this.finish.reason,
      ...(this.finish.stopSequence === undefined ? {} : { stopSequence: this.finish.stopSequence }),
      usage: this.usage,
      usageEstimated: this.estimated,
    };
  }
}
