/** How far a signed timestamp may be from the server's clock, either way (docs/signing.md). */
export const SIGNATURE_WINDOW_SECONDS = 30;

/** Unix seconds as the headers and wallet message carry them: plain decimal digits, no sign. */
export function parseUnixSeconds(text: string): number | null {
  if (!/^\d{1,12}$/.test(text)) return null;
  return Number(text);
}

/** Whether `timestampSeconds` is within the window of the clock reading `nowMs`, inclusive. */
export function isWithinWindow(timestampSeconds: number, nowMs: number, windowSeconds = SIGNATURE_WINDOW_SECONDS): boolean {
  const nowSeconds = Math.floor(nowMs / 1000);
  return Math.abs(nowSeconds - timestampSeconds) <= windowSeconds;
}

/**
 * When a timestamp refused as out of range is a recognizable slip of unit, which: the current
 * time in milliseconds (JavaScript's `Date.now()`), or in seconds with a fraction (Python's
 * `str(time.time())`), either within the window once read as seconds. Null for anything else.
 * Only to say what is wrong: such a timestamp is still refused (docs/decisions-market-auth.md).
 */
export function timestampUnitProblem(text: string, nowMs: number): 'milliseconds' | 'fraction' | null {
  if (/^\d{13}$/.test(text) && Math.abs(Number(text) - nowMs) <= SIGNATURE_WINDOW_SECONDS * 1000) return 'milliseconds';
  if (/^\d{1,12}\.\d+$/.test(text) && isWithinWindow(Math.floor(Number(text)), nowMs)) return 'fraction';
  return null;
}
