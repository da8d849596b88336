import { badRequest } from '../../shared/errors.ts';
import { plainDecimal, splitDecimal } from './decimal-text.ts';

/** 1 USDC = 1,000,000 units (micro-USDC); every amount in the market is a bigint of units. */
export const UNITS_PER_USDC = 1_000_000n;

/**
 * The largest amount a client may send: 1,000,000,000 USDC = 10^15 units. It keeps every single
 * amount under 2^53 / 9, so stakes are exact in float64 (the trade formula needs that) and every
 * amount up to it survives units -> JSON number -> units unchanged (at most 15 significant digits).
 */
export const MAX_AMOUNT_UNITS = 1_000_000_000n * UNITS_PER_USDC;

/**
 * Parses a client amount in USDC (JSON number or decimal string) into units, reading its decimal
 * text, never float arithmetic. Throws 400 naming `field` unless it is a number > 0 with at most
 * 6 decimals and at most MAX_AMOUNT_UNITS.
 */
export function parseUsdcAmount(value: unknown, field = 'amount'): bigint {
  let text: string;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw badRequest(`${field} must be a finite number`);
    // The shortest round-trip text is what the client wrote, up to the 17 digits a JSON
    // number keeps; 1e-7 becomes "0.0000001" and is refused below as 7 decimals.
    text = plainDecimal(value);
  } else if (typeof value === 'string') {
    text = value;
  } else {
    throw badRequest(`${field} must be a number`);
  }
  if (text.startsWith('-') && splitDecimal(text.slice(1))) throw badRequest(`${field} must be greater than 0`);
  const parts = splitDecimal(text);
  if (!parts) throw badRequest(`${field} must be a decimal number of USDC`);
  const fraction = parts.fraction.replace(/0+$/, '');
  if (fraction.length > 6) throw badRequest(`${field} must have at most 6 decimals`);
  const units = BigInt(parts.whole) * UNITS_PER_USDC + BigInt(fraction.padEnd(6, '0'));
  if (units === 0n) throw badRequest(`${field} must be greater than 0`);
  if (units > MAX_AMOUNT_UNITS) throw badRequest(`${field} must be at most ${usdcText(MAX_AMOUNT_UNITS)} USDC`);
  return units;
}

/**
 * A JSON number of USDC with at most 6 decimals, of any sign and size, as units, read from its
 * decimal text. For amounts whose bounds the caller checks with its own documented messages
 * (a trade's `Minimum trade is 1 USDC` covers zero and negative stakes). Throws 400 naming
 * `field` for a non-finite number or more than 6 decimals.
 */
export function usdcNumberToUnits(value: number, field = 'amount'): bigint {
  if (!Number.isFinite(value)) throw badRequest(`${field} must be a finite number`);
  const text = plainDecimal(value);
  const negative = text.startsWith('-');
  const parts = splitDecimal(negative ? text.slice(1) : text);
  if (!parts) throw badRequest(`${field} must be a decimal number of USDC`);
  const fraction = parts.fraction.replace(/0+$/, '');
  if (fraction.length > 6) throw badRequest(`${field} must have at most 6 decimals`);
  const units = BigInt(parts.whole) * UNITS_PER_USDC + BigInt(fraction.padEnd(6, '0'));
  return negative ? -units : units;
}

/**
 * A trade's or an estimate's stake (a JSON number of USDC) as units. Any amount below 1 USDC is
 * below the minimum whatever its decimals, and the document answers it `Minimum trade is 1 USDC`
 * (docs/api-decisions.md, "Market API: thirteenth audit"): such an amount is read as 0 units, so
 * the trade's checks refuse it with that message in their documented order, and it can never
 * trade. From 1 USDC up, more than 6 decimals is refused as usdcNumberToUnits does.
 */
export function stakeNumberToUnits(value: number, field = 'amount'): bigint {
  if (Number.isFinite(value) && value < 1) return 0n;
  return usdcNumberToUnits(value, field);
}

/** Units as a JSON number of USDC (units / 1e6): the float64 nearest the exact decimal. */
export function formatUsdc(units: bigint): number {
  // Parsing the exact decimal text gives the nearest double, whose shortest form is that text
  // again for up to 15 significant digits (every amount up to MAX_AMOUNT_UNITS).
  return Number(usdcText(units));
}

/** Units as exact decimal text of USDC without trailing zeros: 1000001n -> "1.000001". */
export function usdcText(units: bigint): string {
  const sign = units < 0n ? '-' : '';
  const abs = units < 0n ? -units : units;
  const fraction = (abs % UNITS_PER_USDC).toString().padStart(6, '0').replace(/0+$/, '');
  const whole = (abs / UNITS_PER_USDC).toString();
  return fraction ? `${sign}${whole}.${fraction}` : sign + whole;
}
