import { createSealedBox } from '../shared/sealed-box.ts';
import type { ReasoningSealer } from './formats/reasoning-content.ts';

/** The HKDF label of the reasoning tokens' sub-key of the instance secret. */
export const REASONING_SEAL_LABEL = 'svc inference reasoning-content v1';

/**
 * The sealers of reasoning tokens (formats/reasoning-content.ts), one per account: AES-256-GCM
 * under a sub-key of the instance secret (SECRETS_KEY, the same on every instance of one database,
 * so a token issued by one instance opens on the others), with the account as additional data, so
 * a token opens only for the account it was issued to (as OpenAI's encrypted reasoning only for its
 * organization). Deriving the key is done once; a sealer is two closures.
 */
export function createReasoningSealers(secretsKey: Buffer): (accountId: number) => ReasoningSealer {
  const box = createSealedBox(secretsKey, REASONING_SEAL_LABEL);
  return (accountId) => {
    const context = `account:${accountId}`;
    return { seal: (plaintext) => box.seal(plaintext, context), open: (token) => box.open(token, context) };
  };
}
