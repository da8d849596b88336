/**
 * Thinking signatures and redacted thinking are opaque upstream tokens a client must send back
 * unchanged. They are given to clients re-encoded (base64url of the upstream's text) so that their
 * recognisable upstream form never reaches a client, and decoded again when they come back.
 */
export function wrapOpaque(upstreamValue: string): string {
  return upstreamValue === '' ? '' : Buffer.from(upstreamValue, 'utf8').toString('base64url');
}

export function unwrapOpaque(clientValue: string): string {
  return Buffer.from(clientValue, 'base64url').toString('utf8');
}
