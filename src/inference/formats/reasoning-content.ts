import type { ReasoningBlock } from '../canonical/chat.ts';

/**
 * The service's reasoning token: the upstream's reasoning blocks that must go back to it unchanged
 * for a conversation to continue with reasoning (Anthropic's signed thinking blocks and redacted
 * thinking), given to clients so they can send them back statelessly. Responses clients get it as
 * a reasoning item's `encrypted_content`, chat-completions clients as the `signature` / `data` of a
 * `reasoning_details` entry (one block each). It is sealed (authenticated encryption bound to the
 * account, ReasoningSealer), so a client sees neither the upstream's signature nor its forms, and
 * cannot alter what goes back (docs/api-decisions.md, "Reasoning"). Inside: a small JSON document
 * with neutral keys (`v` version, `b` blocks; a thinking block `{t: text, s: signature}`, a redacted
 * one `{r: data}`). The thinking text is inside too: the signature covers it exactly, so the block
 * goes back as signed whatever text the client kept beside it. Messages clients, who keep the text
 * beside its signature as Anthropic's own do, get one value per field under the same sealer
 * instead (anthropic-messages/sealed-tokens.ts); neither kind opens as the other.
 */

/**
 * Seals and opens reasoning tokens for one account (the route gives it: InferenceContext, built
 * from the instance secret), so that this layer needs neither keys nor storage.
 */
export interface ReasoningSealer {
  seal(plaintext: string): string;
  /** The plaintext, or null for a token this service did not seal for this account (tampered, foreign, another key). */
  open(token: string): string | null;
}

type Entry = { readonly t: string; readonly s: string } | { readonly r: string };

/** The token for these blocks, or null when none of them can go back upstream (unsigned thinking). */
export function encodeReasoningContent(blocks: readonly ReasoningBlock[], sealer: ReasoningSealer): string | null {
  const b: Entry[] = [];
  for (const block of blocks) {
    if (block.type === 'redacted_thinking') b.push({ r: block.data });
    else if (block.signature) b.push({ t: block.thinking, s: block.signature });
  }
  return b.length === 0 ? null : sealer.seal(JSON.stringify({ v: 1, b }));
}

/** The blocks of a token this service issued to this account; null for anything else. */
export function decodeReasoningContent(content: string, sealer: ReasoningSealer): ReasoningBlock[] | null {
  const text = sealer.open(content);
  if (text === null) return null;
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof doc !== 'object' || doc === null) return null;
  const { v, b } = doc as { v?: unknown; b?: unknown };
  if (v !== 1 || !Array.isArray(b) || b.length === 0) return null;
  const blocks: ReasoningBlock[] = [];
  for (const e of b as unknown[]) {
    if (typeof e !== 'object' || e === null) return null;
    const { t, s, r } = e as { t?: unknown; s?: unknown; r?: unknown };
    if (typeof r === 'string' && t === undefined && s === undefined) blocks.push({ type: 'redacted_thinking', data: r });
    else if (typeof t === 'string' && typeof s === 'string' && s !== '' && r === undefined) blocks.push({ type: 'thinking', thinking: t, signature: s });
    else return null;
  }
  return blocks;
}
