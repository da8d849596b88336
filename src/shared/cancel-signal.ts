/**
 * What the request path needs of an abort signal: whether it fired, why, and listeners. An
 * AbortSignal has this shape, so any caller may pass one; the gateway's own requests pass a
 * Cancellation instead. Node 20 builds an AbortSignal as an EventTarget, some microseconds per
 * request for the signal and each listener, a visible share of a proxied request's CPU
 * (docs/bench-gateway.md, "Session 8").
 */
export interface CancelSignal {
  readonly aborted: boolean;
  readonly reason: unknown;
  addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}

/**
 * A signal and its controller in one plain object. As with AbortSignal, listeners run once, in
 * the order they were added, when abort() is first called; a listener added after that is never
 * called (check `aborted` first); abort() without a reason gives an AbortError DOMException.
 */
export class Cancellation implements CancelSignal {
  aborted = false;
  reason: unknown = undefined;
  private listeners: (() => void)[] | null = null;
  private controller: AbortController | null = null;

  abort(reason?: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason === undefined ? new DOMException('This operation was aborted', 'AbortError') : reason;
    const listeners = this.listeners;
    this.listeners = null;
    if (listeners) for (const l of listeners) l();
  }

  addEventListener(_type: 'abort', listener: () => void): void {
    if (this.aborted) return;
    (this.listeners ??= []).push(listener);
  }

  removeEventListener(_type: 'abort', listener: () => void): void {
    const i = this.listeners?.indexOf(listener) ?? -1;
    if (i >= 0) this.listeners!.splice(i, 1);
  }

  /** An AbortSignal that follows this one, for libraries that want a real one; made on first use. */
  toAbortSignal(): AbortSignal {
    if (!this.controller) {
      const controller = (this.controller = new AbortController());
      if (this.aborted) controller.abort(this.reason);
      else this.addEventListener('abort', () => controller.abort(this.reason));
    }
    return this.controller.signal;
  }
}

/** An AbortSignal that follows `signal` (itself when it is one). */
export function toAbortSignal(signal: CancelSignal): AbortSignal {
  if (signal instanceof AbortSignal) return signal;
  if (signal instanceof Cancellation) return signal.toAbortSignal();
  const follower = new Cancellation();
  if (signal.aborted) follower.abort(signal.reason);
  else signal.addEventListener('abort', () => follower.abort(signal.reason), { once: true });
  return follower.toAbortSignal();
}
