import type { ProviderStreamEvent } from '../provider-stream.ts';

interface HeldCall {
  readonly index: number;
  readonly id: string;
  readonly name: string;
  args: string;
  /** The chunk that started it, and whether a later chunk brought it a fragment. */
  readonly chunk: number;
  fragmentLater: boolean;
}

/**
 * Keeps the tool calls of an OpenAI-compatible stream one after another. OpenAI's chunks key
 * argument fragments by call index, so a server of parallel calls may interleave them (every
 * call's first chunk, then fragments in turn), while a canonical stream gives one call's
 * arguments at a time, all before the next call starts: the Messages protocol's blocks follow
 * each other, and its encoder takes a fragment only in the open block.
 *
 * A call that starts while another streams is held. A later chunk with fragments of the held call
 * and none of the streaming one shows a server that sends calls one after another: the held call
 * goes out and streams from there on, as before. A fragment of the streaming call while one is
 * held shows interleaving: from then on later calls are held until the calls are over (text or
 * reasoning after them, the finish reason, the end) and go out whole, in order
 * (docs/api-decisions.md, "Inference: seventh audit").
 */
export class LaterToolCalls {
  private held: HeldCall[] = [];
  /** The call whose fragments are passed on as they come; null before a call, or after a release. */
  private live: number | null = null;
  private interleaved = false;
  private chunk = 0;

  get holding(): boolean {
    return this.held.length !== 0;
  }

  /** A call's first chunk: started at once when no other call streams, held otherwise. */
  start(index: number, id: string, name: string, out: ProviderStreamEvent[]): void {
    if (this.live === null && this.held.length === 0) {
      this.live = index;
      out.push({ type: 'tool-call-start', index, id, name });
    } else {
      this.held.push({ index, id, name, args: '', chunk: this.chunk, fragmentLater: false });
    }
  }

  fragment(index: number, argumentsDelta: string, out: ProviderStreamEvent[]): void {
    const h = this.held.length === 0 ? undefined : this.held.find((c) => c.index === index);
    if (h === undefined) {
      if (index === this.live && this.held.length !== 0) this.interleaved = true;
      out.push({ type: 'tool-call-delta', index, argumentsDelta });
      return;
    }
    h.args += argumentsDelta;
    if (h.chunk !== this.chunk) h.fragmentLater = true;
  }

  /** The end of a chunk's tool calls: a held call that got fragments alone goes out and streams. */
  endChunk(out: ProviderStreamEvent[]): void {
    this.chunk++;
    while (!this.interleaved && this.held.length !== 0 && this.held[0]!.fragmentLater) {
      const next = this.held.shift()!;
      this.live = next.index;
      this.give(next, out);
    }
  }

  /** Something other than a tool call arrived, or the answer ended: the held calls go out whole. */
  release(out: ProviderStreamEvent[]): void {
    this.live = null;
    this.interleaved = false;
    if (this.held.length === 0) return;
    for (const c of this.held) this.give(c, out);
    this.held = [];
  }

  private give(c: HeldCall, out: ProviderStreamEvent[]): void {
    out.push({ type: 'tool-call-start', index: c.index, id: c.id, name: c.name });
    if (c.args !== '') out.push({ type: 'tool-call-delta', index: c.index, argumentsDelta: c.args });
  }
}
