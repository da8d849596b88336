import type { StreamPart } from '../canonical/chat.ts';

/** The service's id, the brand id and the creation time an answer is given under. */
export interface TurnIdentity {
  readonly id: string;
  readonly model: string;
  /** Unix seconds. */
  readonly created: number;
}

/** Turns one streamed answer into a client protocol's SSE text. */
export interface StreamEncoder {
  /** What opens the stream, before the first part (may be empty). */
  start(): string;
  encode(part: StreamPart): string;
  /** The protocol's error event, for a failure after the stream began (no status can be set then). */
  fail(error: unknown): string;
  /** What closes the stream after its last part or its error (may be empty). */
  end(): string;
}
