/**
 * Waits for a condition instead of for a time: calls `condition` until it returns a truthy value
 * (which it resolves to), every `everyMs`, and fails with `message` once `timeoutMs` passed. The
 * condition is asked once more after the deadline before failing, so a process paused for a
 * while (a busy machine) fails only when the condition really does not hold.
 */
export async function waitFor<T>(
  condition: () => T | Promise<T>,
  opts: { readonly message: string | (() => string); readonly timeoutMs?: number; readonly everyMs?: number },
): Promise<NonNullable<T>> {
  const deadline = Date.now() + (opts.timeoutMs ?? 10_000);
  for (;;) {
    const v = await condition();
    if (v) return v as NonNullable<T>;
    if (Date.now() >= deadline) {
      const message = typeof opts.message === 'function' ? opts.message() : opts.message;
      throw new Error(`waited ${opts.timeoutMs ?? 10_000} ms: ${message}`);
    }
    await new Promise((r) => setTimeout(r, opts.everyMs ?? 10));
  }
}
