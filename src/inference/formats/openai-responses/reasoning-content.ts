import type { ReasoningBlock } from '../../canonical/chat.ts';

/**
 * A reasoning item's `encrypted_content`: the upstream's reasoning blocks that must go back to it
 * unchanged for the conversation to continue with reasoning (Anthropic's signed thinking blocks
 * and redacted thinking), so that a client can send the item back statelessly. It is opaque, not
 * encrypted: base64url of a small JSON document with neutral keys (`v` version, `b` blocks; a
 * thinking block `{t: text, s: signature}`, a redacted one `{r: data}`), so the upstream's own
 * recognisable forms never reach a client, as for the messages route's signatures
 * (formats/anthropic-messages/opaque.ts). The thinking text is inside too: the signature covers it
 * exactly, and the item's summary joins the text of several blocks.
 */

type Entry = { readonly t: string; readonly s: string } | { readonly r: string };

/** The content for these blocks, or null when none of them can go back upstream (unsigned thinking). */
export function encodeReasoningContent(blocks: readonly ReasoningBlock[]): string | null {
  const b: Entry[] = [];
  for (const block of blocks) {
    if (block.type === 'redacted_thinking') b.push({ r: block.data });
    else if (block.signature) b.push({ t: block.thinking, s: block.signature });
  }
  return b.length === 0 ? null : Buffer.from(JSON.stringify({ v: 1, b }), 'utf8').toString('base64url');
}

/** The blocks of a content this service issued; null for anything else. */
export function decodeReasoningContent(content: string): ReasoningBlock[] | null {
  if (!/^[A-Za-z0-9_-]+$/.test(content)) return null;
  let doc: unknown;
  try {
    doc = JSON.parse(Buffer.from(content, 'base64url').toString('utf8'));
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
