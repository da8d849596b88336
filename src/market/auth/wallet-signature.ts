import { recoverMessageAddress } from 'viem';

/**
 * The lower-case address that produced an EIP-191 personal_sign `signature` over `message`, or
 * null when the signature is not one (not 65 bytes of hex r || s || v, not on the curve).
 */
export async function recoverWalletSigner(message: string, signature: string): Promise<string | null> {
  if (!/^0x[0-9a-fA-F]{130}$/.test(signature)) return null;
  try {
    const address = await recoverMessageAddress({ message, signature: signature as `0x${string}` });
    return address.toLowerCase();
  } catch {
    return null;
  }
}
