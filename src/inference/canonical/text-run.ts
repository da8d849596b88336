/**
 * The upstream events of a text delta when they differ from each other only in their text: each
 * `head` + a JSON string literal + `tail`, as server-sent event text (`data: {...}\n\n`). A run
 * of them stays text: a client encoder whose text delta is also a literal between a fixed head
 * and tail writes its own around each literal as it came (the upstream's ids and model never pass,
 * and the literal is the text, JSON-encoded), with no event parsed and none re-encoded; the token
 * count reads the texts. Most of a streamed answer is such a run (docs/bench-gateway.md, "Session 9").
 */
export interface TextEventTemplate {
  /** An event's text up to its literal's opening quote. */
  readonly head: string;
  /** An event's text after its literal's closing quote, up to and with its blank line. */
  readonly tail: string;
}

/** Events of one template, back to back, as they arrived. */
export interface TextRun {
  /** The text the events are in (more than the run: see `literals`). */
  readonly text: string;
  /** Where each event's literal starts and ends in `text` (its quotes included), in pairs. */
  readonly literals: readonly number[];
  /**
   * Every literal is printable ASCII with no `\u` escape, so the texts are ASCII too and so is
   * whatever an encoder writes of them, as literals or re-encoded (the writer can then skip the
   * UTF-8 work, sse-response.ts). False may also mean ASCII written as `\u` escapes.
   */
  readonly ascii: boolean;
}

/** What matchTextRun found: the literals' offsets, and whether all of them are ASCII (see TextRun). */
export interface TextRunFound {
  readonly literals: number[];
  ascii: boolean;
}

/** A run as a stream part (only for consumers that asked for runs; see ChatStream.batches). */
export interface TextRunPart {
  readonly type: 'text-run';
  readonly run: TextRun;
}

/**
 * A JSON string literal with at least one character, every escape valid, no control character:
 * what JSON.parse reads as a non-empty string, no more (an upstream's invalid literal is not
 * passed on; it is parsed, and refused, with its event).
 */
// One character or escape per step (no nested quantifier: linear time on a literal cut short).
// eslint-disable-next-line no-control-regex -- control characters are what JSON strings may not hold raw
const LITERAL = /"(?:[^"\\\u0000-\u001f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))+"/y;
/** The same, of printable ASCII and the escapes that stand for ASCII, \u escapes aside: tried first. */
const ASCII_LITERAL = /"(?:[\x20\x21\x23-\x5b\x5d-\x7f]|\\["\\/bfnrt])+"/y;

/**
 * The end of the run of `template` events starting at `pos` in `text` (`pos` when none starts
 * there), each event's literal's start and end pushed to `found.literals`, `found.ascii` cleared
 * by a literal that is not ASCII. Only whole events count: head, literal and tail all there.
 */
export function matchTextRun(text: string, pos: number, template: TextEventTemplate, found: TextRunFound): number {
  const { head, tail } = template;
  let end = pos;
  // Slices compared with === rather than startsWith: V8 compares equal-length strings in bulk,
  // while startsWith with a non-constant argument walks them a character at a time (0.3 µs for
  // an event's head, most of this function's time).
  for (;;) {
    const literalStart = end + head.length;
    if (text.slice(end, literalStart) !== head) return end;
    // A JSON string ends at its first unescaped quote: where both patterns match, they end alike.
    let literalEnd: number;
    ASCII_LITERAL.lastIndex = literalStart;
    if (ASCII_LITERAL.test(text)) literalEnd = ASCII_LITERAL.lastIndex;
    else {
      LITERAL.lastIndex = literalStart;
      if (!LITERAL.test(text)) return end;
      literalEnd = LITERAL.lastIndex;
      found.ascii = false;
    }
    const eventEnd = literalEnd + tail.length;
    if (text.slice(literalEnd, eventEnd) !== tail) return end;
    found.literals.push(literalStart, literalEnd);
    end = eventEnd;
  }
}

/** The texts of a run's events, in order. */
export function textsOfRun(run: TextRun): string[] {
  const { text, literals } = run;
  const texts: string[] = [];
  for (let i = 0; i < literals.length; i += 2) {
    const inner = text.slice(literals[i]! + 1, literals[i + 1]! - 1);
    texts.push(inner.includes('\\') ? (JSON.parse(text.slice(literals[i]!, literals[i + 1]!)) as string) : inner);
  }
  return texts;
}

/** The run's events with another head and tail around each literal, as they are. */
export function rewriteRun(run: TextRun, head: string, tail: string): string {
  const { text, literals } = run;
  let out = '';
  for (let i = 0; i < literals.length; i += 2) out += head + text.slice(literals[i]!, literals[i + 1]!) + tail;
  return out;
}
