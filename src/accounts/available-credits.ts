/**
 * What an account can spend now, in micro-credits: its balance less what other holds keep.
 * `reserved` counts every instance's credit lease of the account; the part of the asking
 * instance's own lease that no request holds (Billing.unheld) is the account's own next
 * requests' to spend, so it is not kept from them (docs/dashboard.md).
 */
export function availableCredits(account: { readonly credits: bigint; readonly reserved: bigint }, unheld: bigint): bigint {
  return account.credits - (account.reserved > unheld ? account.reserved - unheld : 0n);
}
