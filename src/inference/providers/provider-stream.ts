import type { CanonicalChatResponse, FinishDetail, FinishReason, StreamPart } from '../canonical/chat.ts';
import type { TextEventTemplate, TextRunPart } from '../canonical/text-run.ts';
import type { Usage } from '../canonical/usage.ts';

/** Content parts a provider stream yields; `finish` and `usage` are added by the upstream layer. */
export type ContentPart = Exclude<StreamPart, { type: 'finish' } | { type: 'usage' }>;

/**
 * What a provider stream parser yields: content, the finish reason when the upstream gives it,
 * and usage counts as they are reported (Anthropic reports input first and output last, so a
 * report may be partial; later reports override earlier fields).
 */
export type ProviderStreamEvent =
  | ContentPart
  | TextRunPart
  | ({ readonly type: 'finish'; readonly reason: FinishReason } & FinishDetail)
  | { readonly type: 'reported-usage'; readonly usage: Partial<Usage> };

/** A parsed non-streamed answer; usage is null when the upstream did not report it. */
export type ProviderChatResult = Omit<CanonicalChatResponse, 'usage' | 'usageEstimated'> & {
  readonly usage: Usage | null;
};

/** One server-sent event as eventsource-parser gives it. */
export interface SseEvent {
  readonly event?: string | undefined;
  readonly data: string;
}

/**
 * A provider stream's parser, fed one event at a time as the upstream's bytes arrive (the events
 * of one read are parsed in one go, with no await per event).
 */
export interface ProviderStreamParser {
  /**
   * Appends what one event carries to `out`; true once the answer is complete (events after it
   * are not read). Throws a ProviderFailure for an error event or a malformed one.
   */
  push(event: SseEvent, out: ProviderStreamEvent[]): boolean;
  /** The events ended: appends the finish, or throws when the answer was cut short. */
  end(out: ProviderStreamEvent[]): void;
  /**
   * The event that push() would read as one non-empty text delta and nothing else, once learned:
   * such events may be given as a text run instead of being pushed one by one (text-run.ts).
   */
  textTemplate?(): TextEventTemplate | null;
}

/** A parser run over an event iterable, yielding event by event. */
export async function* parseEvents(parser: ProviderStreamParser, events: AsyncIterable<SseEvent>): AsyncGenerator<ProviderStreamEvent> {
  const out: ProviderStreamEvent[] = [];
  for await (const event of events) {
    const complete = parser.push(event, out);
    yield* out.splice(0);
    if (complete) break;
  }
  parser.end(out);
  yield* out;
}
