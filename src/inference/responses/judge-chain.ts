/** A link of a stored conversation as the recursive chain queries read it (0: the link asked for). */
export interface ChainLink {
  readonly expires_at: Date;
  readonly depth: number;
}

/**
 * What the links read back from one stored response or message turn say, oldest first:
 * `missing` when the one asked for is absent (another account's, or never stored) or expired;
 * `broken` when one it continues expired or was pruned, so the conversation cannot be rebuilt.
 * The same rule for responses' `previous_response_id` and message threads.
 */
export function judgeChain<L extends ChainLink>(links: readonly L[], parentOf: (link: L) => string | null, now: Date): 'found' | 'missing' | 'broken' {
  const head = links.at(-1);
  if (!head || head.depth !== 0 || new Date(head.expires_at) <= now) return 'missing';
  if (parentOf(links[0]!) !== null || links.some((l) => new Date(l.expires_at) <= now)) return 'broken';
  return 'found';
}
