import { badRequest } from '../../shared/errors.ts';

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;

/** Whether a value is a wallet address: `0x` and 40 hex digits, any case. */
export function isWalletAddress(value: unknown): value is string {
  return typeof value === 'string' && ADDRESS.test(value);
}

/**
 * The stored form of a wallet address (lower case). Throws 400 naming `field` when the value is
 * not `0x` followed by 40 hex digits.
 */
export function normalizeWalletAddress(value: unknown, field = 'wallet'): string {
  if (!isWalletAddress(value)) throw badRequest(`invalid ${field}: must be 0x followed by 40 hex digits`);
  return value.toLowerCase();
}
