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
