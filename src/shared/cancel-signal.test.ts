import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Cancellation, toAbortSignal, type CancelSignal } from './cancel-signal.ts';

describe('Cancellation', () => {
  it('runs its listeners once, in order, with the reason set', () => {
    const c = new Cancellation();
    const seen: string[] = [];
    c.addEventListener('abort', () => seen.push(`a:${String(c.reason)}`));
    c.addEventListener('abort', () => seen.push(`b:${String(c.aborted)}`));
    c.abort('why');
    c.abort('again');
    assert.deepEqual(seen, ['a:why', 'b:true']);
    assert.equal(c.reason, 'why');
  });

  it('does not call a removed listener, nor one added after the abort', () => {
    const c = new Cancellation();
    let calls = 0;
    const l = () => void calls++;
    c.addEventListener('abort', l);
    c.removeEventListener('abort', l);
    c.removeEventListener('abort', l);
    c.abort();
    c.addEventListener('abort', l);
    assert.equal(calls, 0);
  });

  it('gives an AbortError when aborted without a reason, as AbortController does', () => {
    const c = new Cancellation();
    c.abort();
    assert.ok(c.reason instanceof DOMException);
    assert.equal((c.reason as DOMException).name, 'AbortError');
  });

  it('a listener that removes another during the abort does not skip it', () => {
    const c = new Cancellation();
    const seen: number[] = [];
    const second = () => seen.push(2);
    c.addEventListener('abort', () => {
      seen.push(1);
      c.removeEventListener('abort', second);
    });
    c.addEventListener('abort', second);
    c.abort();
    assert.deepEqual(seen, [1, 2]);
  });

  it('follows into a real AbortSignal, before or after the abort', () => {
    const before = new Cancellation();
    const signal = before.toAbortSignal();
    assert.equal(before.toAbortSignal(), signal);
    assert.equal(signal.aborted, false);
    before.abort('late');
    assert.equal(signal.aborted, true);
    assert.equal(signal.reason, 'late');

    const after = new Cancellation();
    after.abort('early');
    assert.equal(after.toAbortSignal().reason, 'early');
  });

  it('toAbortSignal passes an AbortSignal through and follows any other CancelSignal', () => {
    const real = new AbortController().signal;
    assert.equal(toAbortSignal(real), real);

    let listener: (() => void) | null = null;
    const other: CancelSignal = {
      aborted: false,
      reason: 'other',
      addEventListener: (_t, l) => void (listener = l),
      removeEventListener: () => {},
    };
    const followed = toAbortSignal(other);
    assert.equal(followed.aborted, false);
    listener!();
    assert.equal(followed.reason, 'other');
  });

  it('an AbortSignal is a CancelSignal (callers may pass either)', () => {
    const controller = new AbortController();
    const s: CancelSignal = controller.signal;
    let fired = false;
    s.addEventListener('abort', () => (fired = true), { once: true });
    controller.abort('x');
    assert.equal(fired, true);
    assert.equal(s.reason, 'x');
  });
});
