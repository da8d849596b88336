import type { CitedTextBlock } from './chat.ts';

/** Where the first of `stops` starts in `text`, and which one; null when none is in it. */
export function firstStop(text: string, stops: readonly string[]): { readonly at: number; readonly stop: string } | null {
  let first: { at: number; stop: string } | null = null;
  for (const stop of stops) {
    const at = text.indexOf(stop);
    if (at >= 0 && (first === null || at < first.at)) first = { at, stop };
  }
  return first;
}

/**
 * Cuts streamed text at the first occurrence of any of `stops`, however the text is split into
 * deltas. Text is passed on as soon as no stop sequence can start in it; only a tail that could be
 * the start of one is held until the next delta tells (or `flush` gives it back at the end).
 */
export class StopCutter {
  private held = '';
  private readonly longest: number;

  constructor(private readonly stops: readonly string[]) {
    this.longest = Math.max(...stops.map((s) => s.length));
  }

  /**
   * The next delta: the text that can be passed on now, and the stop sequence once one matched
   * (the text is then what came before it; nothing after it is given).
   */
  push(delta: string): { readonly text: string; readonly stop: string | null } {
    const text = this.held + delta;
    const found = firstStop(text, this.stops);
    if (found !== null) {
      this.held = '';
      return { text: text.slice(0, found.at), stop: found.stop };
    }
    const hold = this.heldFrom(text);
    this.held = text.slice(hold);
    return { text: text.slice(0, hold), stop: null };
  }

  /** What is held, given back (the text ended, or something other than text comes next). */
  flush(): string {
    const held = this.held;
    this.held = '';
    return held;
  }

  /** Where the tail that could start a stop sequence begins (the text's length when none could). */
  private heldFrom(text: string): number {
    for (let at = Math.max(0, text.length - this.longest + 1); at < text.length; at++) {
      const tail = text.slice(at);
      if (this.stops.some((s) => s.startsWith(tail))) return at;
    }
    return text.length;
  }
}

/** The blocks whose texts, joined, are the first `length` characters of theirs. */
export function blocksUpTo(blocks: readonly CitedTextBlock[], length: number): CitedTextBlock[] {
  const out: CitedTextBlock[] = [];
  let left = length;
  for (const b of blocks) {
    if (left === 0) break;
    out.push(b.text.length <= left ? b : { ...b, text: b.text.slice(0, left) });
    left -= Math.min(left, b.text.length);
  }
  return out;
}
