import { finishDetail, type CanonicalChatResponse, type CitedTextBlock, type FinishDetail, type FinishReason, type JsonObject, type ReasoningBlock, type StreamPart, type ToolCall } from './chat.ts';
import { ZERO_USAGE, type Usage } from './usage.ts';

/**
 * Gathers a streamed answer's parts into the answer a non-streamed request would have had, for
 * what must keep a streamed answer whole (a message thread's turn). Parts come as the stream
 * gives them (chat.ts, StreamPart).
 */
export class StreamCollector {
  private text = '';
  private refusal: string | null = null;
  // The text as the upstream's blocks, kept when one is cited (chat.ts, CitedTextBlock).
  private readonly textBlocks: { text: string; citations: JsonObject[] }[] = [];
  private textBlock: { text: string; citations: JsonObject[] } | null = null;
  private cited = false;
  private reasoning = '';
  private readonly blocks: ReasoningBlock[] = [];
  private thinking: string | null = null;
  private readonly calls: { id: string; name: string; arguments: string }[] = [];
  private finish: ({ reason: FinishReason } & FinishDetail) | null = null;
  private usage: Usage = ZERO_USAGE;
  private estimated = false;

  add(part: StreamPart): void {
    switch (part.type) {
      case 'text-delta':
        if (part.text === '') break;
        this.text += part.text;
        (this.textBlock ??= { text: '', citations: [] }).text += part.text;
        break;
      case 'refusal-delta':
        this.refusal = (this.refusal ?? '') + part.text;
        break;
      case 'citation':
        // A block's citations come before its text: one arriving after text opens the next block.
        if (this.textBlock === null || this.textBlock.text !== '' || this.textBlock.citations.length === 0) this.closeText();
        (this.textBlock ??= { text: '', citations: [] }).citations.push(part.citation);
        this.cited = true;
        break;
      case 'text-break':
        this.closeText();
        break;
      case 'reasoning-delta':
        this.closeText();
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
        this.closeText();
        this.calls[part.index] = { id: part.id, name: part.name, arguments: '' };
        break;
      case 'tool-call-delta': {
        const call = this.calls[part.index];
        if (call) call.arguments += part.argumentsDelta;
        break;
      }
      case 'finish':
        this.finish = { reason: part.reason, ...finishDetail(part) };
        break;
      case 'usage':
        this.usage = part.usage;
        this.estimated = part.estimated;
        break;
    }
  }

  private closeText(): void {
    if (this.textBlock === null) return;
    this.textBlocks.push(this.textBlock);
    this.textBlock = null;
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
    this.closeText();
    const textBlocks: CitedTextBlock[] = this.textBlocks.map((b) => (b.citations.length > 0 ? { text: b.text, citations: b.citations } : { text: b.text }));
    const toolCalls: ToolCall[] = this.calls.filter((c) => c !== undefined);
    return {
      text: this.text,
      ...(this.refusal !== null ? { refusal: this.refusal } : {}),
      ...(this.cited ? { textBlocks } : {}),
      reasoning: this.reasoning,
      reasoningBlocks: this.blocks.slice(),
      toolCalls,
      finishReason: this.finish.reason,
      ...finishDetail(this.finish),
      usage: this.usage,
      usageEstimated: this.estimated,
    };
  }
}
