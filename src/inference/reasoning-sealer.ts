import { createSealedBox, type SealedBox } from '../shared/sealed-box.ts';
import type { ReasoningSealer } from './formats/reasoning-content.ts';

/** The HKDF label of the reasoning tokens' sub-key of the instance secret. */
export const REASONING_SEAL_LABEL = 'svc inference reasoning-content v1';

/** One account's sealer: one small object per request, whose context is built only when a token is sealed or opened. */
class AccountSealer implements ReasoningSealer {
  private context: string | null = null;

  constructor(
    private readonly box: SealedBox,
    private readonly accountId: number,
  ) {}

  private ctx(): string {
    return (this.context ??= `account:${this.accountId}`);
  }

  seal(plaintext: string): string {
    return this.box.seal(plaintext, this.ctx());
  }

  open(token: string): string | null {
    return this.box.open(token, this.ctx());
  }
}

/**
 * The sealers of reasoning tokens (formats/reasoning-content.ts), one per account: AES-256-GCM
 * under a sub-key of the instance secret (SECRETS_KEY, the same on every instance of one database,
 * so a token issued by one instance opens on the others), with the account as additional data, so
 * a token opens only for the account it was issued to (as OpenAI's encrypted reasoning only for its
 * organization). The key is derived once; a request without reasoning never uses its sealer.
 * Tokens sealed under a previous secret (SECRETS_KEY_PREVIOUS) still open, so a key rotation
 * strands no client's conversation; one of a secret no longer held opens as nothing, like a
 * tampered one.
 */
export function createReasoningSealers(secretsKey: Buffer, previous: readonly Buffer[] = []): (accountId: number) => ReasoningSealer {
  const box = createSealedBox(secretsKey, REASONING_SEAL_LABEL, previous);
  return (accountId) => new AccountSealer(box, accountId);
}
