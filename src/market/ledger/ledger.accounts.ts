/**
 * Names of ledger accounts. A wallet's balance and a market's escrow are each kept twice: as the
 * sum of their account's ledger rows and as a column updated in the same transaction.
 */
export const FEES_ACCOUNT = 'fees';
/** Money that entered (deposits, negative here) or left (withdrawals, positive) the service. */
export const EXTERNAL_ACCOUNT = 'external';

export const walletAccount = (address: string): string => `wallet:${address}`;
export const escrowAccount = (marketId: number): string => `escrow:${marketId}`;

export type ParsedAccount =
  | { readonly kind: 'wallet'; readonly address: string }
  | { readonly kind: 'escrow'; readonly marketId: number }
  | { readonly kind: 'fees' }
  | { readonly kind: 'external' };

/** Reads an account name back; null for a name that is none of the four kinds. */
export function parseAccount(account: string): ParsedAccount | null {
  if (account === FEES_ACCOUNT) return { kind: 'fees' };
  if (account === EXTERNAL_ACCOUNT) return { kind: 'external' };
  const w = /^wallet:(0x[0-9a-f]{40})$/.exec(account);
  if (w) return { kind: 'wallet', address: w[1]! };
  const e = /^escrow:([1-9]\d{0,9})$/.exec(account);
  if (e) {
    const id = Number(e[1]);
    if (id <= 2_147_483_647) return { kind: 'escrow', marketId: id };
  }
  return null;
}
