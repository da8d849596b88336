import { badRequest } from '../../shared/errors.ts';
import { plainDecimal, splitDecimal } from './decimal-text.ts';
import { type MarketType, type Outcome, type OutcomeRecord, mapOutcomes, marketOutcomes } from './market-pools.ts';
import { MAX_AMOUNT_UNITS, UNITS_PER_USDC, usdcText } from './usdc-amount.ts';

/** Seed liquidity of a market whose creator gives none: 100 USDC. */
export const DEFAULT_SEED_UNITS = 100n * UNITS_PER_USDC;

/** How far the opening prices a creator gives may sum from 1. */
export const OPENING_PRICE_TOLERANCE = 1e-6;

/** How far a market may open from the price asked of each outcome (the same 1e-6), as a divisor. */
const OPENING_FIDELITY = 1_000_000n;

/** What a market creator may give (admin `opening_prices`, `seed_liquidity` parsed into units). */
export interface OpeningOptions {
  /** `{ yes, no[, draw] }`, each in (0, 1), summing to 1 within 1e-6; default: equal prices. */
  readonly prices?: unknown;
  /** Total of the virtual seeds V, in units; default DEFAULT_SEED_UNITS. */
  readonly liquidity?: bigint;
}

/**
 * The virtual seeds V[o] of a new market: `liquidity` split in proportion to the opening prices
 * (equal by default), exact to the unit: floors first, the leftover units to the largest
 * remainders (ties: yes, no, draw), then any outcome left at 0 takes 1 unit from the largest,
 * so the seeds sum to exactly `liquidity` and each is >= 1. The market must open at the prices
 * asked: a liquidity too small to split at them within 1e-6 each is refused rather than opened
 * at other prices (docs/api-decisions.md, "Market API: inputs and shapes"). Throws 400 naming
 * the field.
 */
export function openingSeeds(marketType: MarketType, options: OpeningOptions = {}): OutcomeRecord<bigint> {
  const outcomes = marketOutcomes(marketType);
  const liquidity = options.liquidity ?? DEFAULT_SEED_UNITS;
  const minimum = BigInt(outcomes.length);
  if (liquidity < minimum) throw badRequest(`seed_liquidity must be at least ${usdcText(minimum)} USDC`);
  if (liquidity > MAX_AMOUNT_UNITS) throw badRequest(`seed_liquidity must be at most ${usdcText(MAX_AMOUNT_UNITS)} USDC`);
  const given = options.prices !== undefined;
  const weights = given ? priceWeights(options.prices, marketType, outcomes) : outcomes.map(() => 1n);
  const seeds = splitByWeights(liquidity, weights);
  const total = weights.reduce((a, b) => a + b, 0n);
  outcomes.forEach((o, i) => {
    // |seed / liquidity - weight / total| <= 1e-6, in integers.
    const gap = seeds[i]! * total - weights[i]! * liquidity;
    if ((gap < 0n ? -gap : gap) * OPENING_FIDELITY <= liquidity * total) return;
    const asked = given ? (options.prices as Record<string, number>)[o]! : 1 / outcomes.length;
    throw badRequest(
      `seed_liquidity ${usdcText(liquidity)} USDC is too small to open at ${given ? 'these' : 'even'} prices: ` +
        `${o} would open at ${priceText(Number(seeds[i]!) / Number(liquidity))} instead of ${priceText(asked)} (each within ${OPENING_PRICE_TOLERANCE.toFixed(6)})`,
    );
  });
  return mapOutcomes(outcomes, (o) => seeds[outcomes.indexOf(o)]!);
}

/** A price in a message: at most 8 decimals, no float noise (0.1 + 0.2 reads 0.3). */
const priceText = (p: number): string => String(Number(p.toFixed(8)));

/** Checks the creator's prices and turns them into exact integer weights (their decimal text). */
function priceWeights(prices: unknown, marketType: MarketType, outcomes: readonly Outcome[]): bigint[] {
  const names = outcomes.join(', ');
  if (typeof prices !== 'object' || prices === null || Array.isArray(prices)) {
    throw badRequest(`opening_prices must be an object keyed by outcome (${names})`);
  }
  const given = prices as Record<string, unknown>;
  for (const key of Object.keys(given)) {
    if (!(outcomes as readonly string[]).includes(key)) {
      throw badRequest(`opening_prices.${key} is not an outcome of ${/^[aeiou]/.test(marketType) ? 'an' : 'a'} ${marketType} market (${names})`);
    }
  }
  const values = outcomes.map((o) => {
    const p = given[o];
    if (p === undefined) throw badRequest(`opening_prices.${o} is required`);
    if (typeof p !== 'number' || !Number.isFinite(p) || p <= 0 || p >= 1) {
      throw badRequest(`opening_prices.${o} must be a number between 0 and 1, both excluded`);
    }
    return p;
  });
  const sum = values.reduce((a, b) => a + b, 0);
  if (Math.abs(sum - 1) > OPENING_PRICE_TOLERANCE) {
    throw badRequest(`opening_prices must sum to 1 (within ${OPENING_PRICE_TOLERANCE.toFixed(6)}), got ${priceText(sum)}`);
  }
  // 0.6 means 6/10, not the double nearest 0.6: read the decimal text, scale all to one denominator.
  const parts = values.map((p) => splitDecimal(plainDecimal(p))!);
  const scale = Math.max(...parts.map((x) => x.fraction.length));
  return parts.map((x) => BigInt(x.whole + x.fraction.padEnd(scale, '0')));
}

/** Splits `total` units in proportion to `weights` (largest remainder), every share >= 1. */
function splitByWeights(total: bigint, weights: readonly bigint[]): bigint[] {
  const sum = weights.reduce((a, b) => a + b, 0n);
  const shares = weights.map((w) => (total * w) / sum);
  const remainders = weights.map((w) => (total * w) % sum);
  let leftover = total - shares.reduce((a, b) => a + b, 0n);
  const byRemainder = weights.map((_, i) => i).sort((i, j) => (remainders[j]! > remainders[i]! ? 1 : remainders[j]! < remainders[i]! ? -1 : i - j));
  for (const i of byRemainder) {
    if (leftover === 0n) break;
    shares[i]! += 1n;
    leftover -= 1n;
  }
  for (let i = 0; i < shares.length; i++) {
    if (shares[i]! >= 1n) continue;
    // total >= count, so some other share is >= 2 while one is 0 (pigeonhole).
    let largest = 0;
    for (let j = 1; j < shares.length; j++) if (shares[j]! > shares[largest]!) largest = j;
    shares[largest]! -= 1n;
    shares[i]! += 1n;
  }
  return shares;
}
