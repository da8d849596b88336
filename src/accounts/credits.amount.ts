/** 1 credit = 1,000,000 micro-credits; every balance and price is held in micro-credits. */
export const MICRO_PER_CREDIT = 1_000_000n;
/** Largest amount one admin call may move: keeps every accepted JSON number exact in a double. */
export const MAX_CREDITS_PER_GRANT = 1_000_000_000;

export class CreditsAmountError extends Error {}

/**
 * Credits given as a JSON number (or decimal text), possibly negative, with at most 6 decimals,
 * to micro-credits without float arithmetic: the number's shortest decimal form is parsed as text.
 * Below 10^9 credits with 6 decimals that form is exactly what the client wrote.
 */
export function parseCredits(value: number | string): bigint {
  let text: string;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new CreditsAmountError('must be a finite number');
    if (Math.abs(value) > MAX_CREDITS_PER_GRANT) throw new CreditsAmountError(`must be between -${MAX_CREDITS_PER_GRANT} and ${MAX_CREDITS_PER_GRANT}`);
    text = plainDecimal(value);
  } else {
    text = value.trim();
  }
  const m = /^(-)?(\d+)(?:\.(\d+))?$/.exec(text);
  if (!m) throw new CreditsAmountError('must be a decimal number');
  const frac = m[3] ?? '';
  if (frac.replace(/0+$/, '').length > 6) throw new CreditsAmountError('at most 6 decimal places');
  const micro = BigInt(m[2]!) * MICRO_PER_CREDIT + BigInt((frac + '000000').slice(0, 6));
  if (micro > BigInt(MAX_CREDITS_PER_GRANT) * MICRO_PER_CREDIT) {
    throw new CreditsAmountError(`must be between -${MAX_CREDITS_PER_GRANT} and ${MAX_CREDITS_PER_GRANT}`);
  }
  return m[1] ? -micro : micro;
}

function plainDecimal(n: number): string {
  const s = String(n);
  if (!/e/i.test(s)) return s;
  // Exponent forms (1e-7, 1e21) are either too precise or out of range; expand them to fail cleanly.
  return n.toFixed(20).replace(/\.?0+$/, '');
}

/** Micro-credits as exact decimal text: 1500000n -> "1.5", -25n -> "-0.000025". */
export function formatCredits(micro: bigint): string {
  const neg = micro < 0n;
  const abs = neg ? -micro : micro;
  const whole = abs / MICRO_PER_CREDIT;
  const frac = (abs % MICRO_PER_CREDIT).toString().padStart(6, '0').replace(/0+$/, '');
  return `${neg ? '-' : ''}${whole}${frac ? `.${frac}` : ''}`;
}

/**
 * Micro-credits as a JSON number of credits. The shortest double for a decimal of at most 15
 * significant digits prints back as that decimal, so readers see the exact value.
 */
export function creditsNumber(micro: bigint): number {
  return Number(formatCredits(micro));
}
