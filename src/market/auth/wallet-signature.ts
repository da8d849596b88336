
/**
 * The lower-case address that produced an EIP-191 personal_sign `signature` over `message`, or
 * null when the signature is not one (not 65 bytes of hex r || s || v, not on the curve).
 */
export async function recoverWalletSigner(message: string, signature: string): Promise<string | null> {
  if (!/^0x[0-9a-fA-F]{130}$/.test(signature)) return null;
  try {
    // Loaded with the first wallet signature, not at start (a gateway-only service never needs it).
    const { recoverMessageAddress } = await import('viem');
    const address = await recoverMessageAddress({ message, signature: signature as `0x${string}` });
    return address.toLowerCase();
  } catch {
    return null;
  }
}

/**
 * Whether `signature` is an EIP-191 signature written without its `0x`: 65 bytes of bare hex, as
 * web3.py's `signature.hex()` gives it (hexbytes 1.x). Named in the refusal rather than read, as
 * the contract's encoding is 0x-hex (docs/decisions-market-auth.md).
 */
export function isWalletSignatureWithout0x(signature: string): boolean {
  return /^[0-9a-fA-F]{130}$/.test(signature);
}
