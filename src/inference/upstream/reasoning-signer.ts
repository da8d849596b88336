import type { CanonicalMessage, ReasoningBlock } from '../canonical/chat.ts';
import type { ProviderChatResult, ProviderStreamEvent, ProviderStreamParser } from '../providers/provider-stream.ts';

/**
 * Which upstream model signed a reasoning block. Anthropic verifies a thinking block's signature
 * and a redacted block's data only with the model that produced them, and refuses the request
 * (400 `Invalid signature in thinking block`) when another model gets them; a conversation goes to
 * another model whenever a pipeline's lane, svc-auto's choice or a fallback changes between turns.
 * So the upstream layer marks each signature and redacted data an answer gives with the upstream
 * model of the deployment that gave it, as it leaves the adapter. The mark travels inside the
 * client's sealed reasoning token (formats/reasoning-content.ts, anthropic-messages/sealed-tokens.ts),
 * so no client sees it, and comes off before a request reaches an adapter: a deployment gets back
 * only the blocks its own model signed (docs/api-decisions.md, "Routing: session 29").
 *
 * A marked value is `<upstream model> NUL <value>`: Anthropic's signatures and data are base64 and
 * model names are printable, so neither holds a NUL. A value without the mark (a token issued
 * before marks were kept) names no signer and goes to whichever model reasons, as it did then.
 */
const MARK = '\u0000';

/** `value` marked as signed by `upstreamModel`; an empty value (nothing signed) stays empty. */
export function markSigned(value: string, upstreamModel: string): string {
  return value === '' ? '' : `${upstreamModel}${MARK}${value}`;
}

/** The model that signed a marked value (null: unmarked) and the upstream's value itself. */
export function readSigned(value: string): { readonly signer: string | null; readonly value: string } {
  const at = value.indexOf(MARK);
  return at < 0 ? { signer: null, value } : { signer: value.slice(0, at), value: value.slice(at + 1) };
}

function markBlock(block: ReasoningBlock, upstreamModel: string): ReasoningBlock {
  if (block.type === 'redacted_thinking') return { ...block, data: markSigned(block.data, upstreamModel) };
  return block.signature ? { ...block, signature: markSigned(block.signature, upstreamModel) } : block;
}

/** A whole answer with its blocks marked as `upstreamModel`'s. */
export function markResult<R extends Pick<ProviderChatResult, 'reasoningBlocks'>>(result: R, upstreamModel: string): R {
  if (!result.reasoningBlocks) return result;
  return Object.assign({}, result, { reasoningBlocks: result.reasoningBlocks.map((b) => markBlock(b, upstreamModel)) });
}

function markEvents(out: ProviderStreamEvent[], from: number, upstreamModel: string): void {
  for (let i = from; i < out.length; i++) {
    const e = out[i]!;
    if (e.type !== 'reasoning-delta' || (e.signature === undefined && e.redacted === undefined)) continue;
    out[i] = {
      ...e,
      ...(e.signature !== undefined ? { signature: markSigned(e.signature, upstreamModel) } : {}),
      ...(e.redacted !== undefined ? { redacted: markSigned(e.redacted, upstreamModel) } : {}),
    };
  }
}

/** `parser` with the signatures and redacted data of its events marked as `upstreamModel`'s. */
export function markingParser(parser: ProviderStreamParser, upstreamModel: string): ProviderStreamParser {
  const marking: ProviderStreamParser = {
    push(event, out) {
      const from = out.length;
      const complete = parser.push(event, out);
      markEvents(out, from, upstreamModel);
      return complete;
    },
    end(out) {
      const from = out.length;
      parser.end(out);
      markEvents(out, from, upstreamModel);
    },
  };
  // Text runs carry no reasoning, so the template is the parser's own.
  return parser.textTemplate ? { ...marking, textTemplate: () => parser.textTemplate!() } : marking;
}

/**
 * The reasoning blocks of a turn as `upstreamModel` may be sent them: its own (unmarked) and the
 * unmarked ones of tokens issued before marks; blocks another model signed are left out. The same
 * array when nothing changes; null when none is left, so the turn goes without reasoning (the
 * Anthropic adapter then leaves thinking off on a continuation that would need them:
 * build-anthropic-messages-body.ts).
 */
function blocksFor(blocks: readonly ReasoningBlock[], upstreamModel: string): readonly ReasoningBlock[] | null {
  const kept: ReasoningBlock[] = [];
  for (const b of blocks) {
    const signed = readSigned(b.type === 'redacted_thinking' ? b.data : (b.signature ?? ''));
    if (signed.signer !== null && signed.signer !== upstreamModel) continue;
    if (signed.signer === null) kept.push(b);
    else kept.push(b.type === 'redacted_thinking' ? { ...b, data: signed.value } : { ...b, signature: signed.value });
  }
  if (kept.length === 0) return null;
  return kept.every((b, i) => b === blocks[i]) && kept.length === blocks.length ? blocks : kept;
}

/** The messages with each turn's reasoning blocks as `upstreamModel` may be sent them (blocksFor); the same array when nothing changes. */
export function messagesForSigner(messages: readonly CanonicalMessage[], upstreamModel: string): readonly CanonicalMessage[] {
  if (!messages.some((m) => m.role === 'assistant' && m.reasoning !== undefined)) return messages;
  let changed = false;
  const sent = messages.map((m) => {
    if (m.role !== 'assistant' || m.reasoning === undefined) return m;
    const kept = blocksFor(m.reasoning, upstreamModel);
    if (kept === m.reasoning) return m;
    changed = true;
    if (kept !== null) return { ...m, reasoning: kept };
    const { reasoning: _dropped, ...rest } = m;
    return rest;
  });
  return changed ? sent : messages;
}
