import type { ReasoningSealer } from '../reasoning-content.ts';

/**
 * Thinking signatures and redacted thinking data on the Messages API. They are the upstream's
 * opaque tokens, which a client must send back unchanged, and their form names the upstream; so a
 * client gets the service's sealed token of the value instead (docs/api-decisions.md,
 * "Reasoning": AES-256-GCM under a sub-key of SECRETS_KEY, bound to the account, through the
 * route's ReasoningSealer), and the service opens it when the block comes back, so the upstream
 * gets its own value unchanged.
 *
 * A token holds the one value, behind a character naming its field (`s` signature, `r` redacted
 * data): a token opens only in the field it was given in, and the sealed documents of the other
 * formats (reasoning-content.ts, JSON) never open here, nor these there. The thinking text is not
 * inside: an Anthropic client sends it back beside its signature, and the upstream verifies the
 * two together, as it does for its own clients. An empty value (reasoning an upstream did not
 * sign) is no token and stays empty both ways.
 */
export type SealedField = 'signature' | 'data';

const TAG: Readonly<Record<SealedField, string>> = { signature: 's', data: 'r' };

/** The client's token for the upstream's value of `field`; '' for ''. */
export function sealBlockValue(field: SealedField, upstreamValue: string, sealer: ReasoningSealer): string {
  return upstreamValue === '' ? '' : sealer.seal(TAG[field] + upstreamValue);
}

/** The upstream's value of a token this service gave this account for `field` ('' for ''); null for anything else. */
export function openBlockValue(field: SealedField, token: string, sealer: ReasoningSealer): string | null {
  if (token === '') return '';
  const text = sealer.open(token);
  return text !== null && text.length > 1 && text[0] === TAG[field] ? text.slice(1) : null;
}
