import type { StreamPart } from '../canonical/chat.ts';
import { textsOfRun, type TextRun } from '../canonical/text-run.ts';

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
  /**
   * A run of text deltas as the upstream sent them (text-run.ts), for an encoder whose text delta
   * is a JSON string literal between a fixed head and tail: it writes its own around each literal
   * as it came, without reading the texts. Absent, runs arrive as text deltas.
   */
  encodeRun?(run: TextRun): string;
  /** The protocol's error event, for a failure after the stream began (no status can be set then). */
  fail(error: unknown): string;
  /** What closes the stream after its last part or its error (may be empty). */
  end(): string;
}

/** A run encoded text delta by text delta: what encodeRun does before its text is open. */
export function encodeRunAsDeltas(run: TextRun, encode: (part: StreamPart) => string): string {
  let out = '';
  for (const text of textsOfRun(run)) out += encode({ type: 'text-delta', text });
  return out;
}
