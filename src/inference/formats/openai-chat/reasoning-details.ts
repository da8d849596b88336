import type { CanonicalChatResponse, ReasoningBlock } from '../../canonical/chat.ts';
import { at, expectFields, invalid, readString } from '../read-fields.ts';
import { decodeReasoningContent, encodeReasoningContent, type ReasoningSealer } from '../reasoning-content.ts';

/**
 * Reasoning on chat completions, in OpenRouter's convention (docs/api-decisions.md, "Reasoning"):
 * the assistant message (and each stream delta) carries the reasoning text as `reasoning` and the
 * reasoning blocks as `reasoning_details`, which a client sends back on the assistant message of
 * its next request so that the upstream gets them back (an Anthropic tool-use continuation keeps
 * thinking on). A thinking block is `{type: "reasoning.text", text, signature, format, index}`,
 * redacted thinking `{type: "reasoning.encrypted", data, format, index}`. The `signature` and the
 * `data` are the service's sealed reasoning token of that one block (reasoning-content.ts; the
 * thinking text is inside it), never the upstream's own value, and `format` is the service's,
 * never the upstream's name. Reasoning without a signature (an OpenAI-compatible upstream's) is a
 * `reasoning.text` entry without `signature`: it is shown, and nothing of it goes back.
 */

export const REASONING_DETAILS_FORMAT = 'svc-reasoning-v1';

export type ReasoningDetail =
  | { readonly type: 'reasoning.text'; readonly text: string; readonly signature?: string; readonly format: string; readonly index: number }
  | { readonly type: 'reasoning.encrypted'; readonly data: string; readonly format: string; readonly index: number };

/** The entry of one block of an answer, `index` its position among the answer's blocks. */
export function detailOf(block: ReasoningBlock, index: number, sealer: ReasoningSealer): ReasoningDetail {
  const format = REASONING_DETAILS_FORMAT;
  if (block.type === 'redacted_thinking') return { type: 'reasoning.encrypted', data: encodeReasoningContent([block], sealer)!, format, index };
  const token = encodeReasoningContent([block], sealer);
  return token === null ? { type: 'reasoning.text', text: block.thinking, format, index } : { type: 'reasoning.text', text: block.thinking, signature: token, format, index };
}

/** `reasoning_details` of a non-streamed answer: its blocks, or its reasoning text as one unsigned entry; undefined without reasoning. */
export function reasoningDetailsOf(response: Pick<CanonicalChatResponse, 'reasoning' | 'reasoningBlocks'>, sealer: ReasoningSealer): ReasoningDetail[] | undefined {
  if (response.reasoningBlocks && response.reasoningBlocks.length > 0) return response.reasoningBlocks.map((b, i) => detailOf(b, i, sealer));
  if (response.reasoning !== '') return [{ type: 'reasoning.text', text: response.reasoning, format: REASONING_DETAILS_FORMAT, index: 0 }];
  return undefined;
}

/**
 * The blocks an assistant message's `reasoning_details` carry back, in order. An entry of the
 * service's format (or without a format) that has a `signature` or `data` must hold a token the
 * service issued to this account: anything else is a 400 naming it, as OpenAI refuses encrypted
 * content it cannot decrypt. The token carries its block whole, so the `text` beside it is not
 * used, and text without a signature (or a stream's text deltas sent back one by one) adds
 * nothing. Entries of another format (another service's) and of other types (`reasoning.summary`)
 * are not the service's to send and are left out; a token given twice goes back once.
 */
export function readReasoningDetails(value: unknown, path: string, sealer: ReasoningSealer): ReasoningBlock[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) return invalid(path, 'must be an array');
  const blocks: ReasoningBlock[] = [];
  const seen = new Set<string>();
  value.forEach((entry, j) => {
    const p = at(path, j);
    const f = expectFields(entry, p);
    const type = readString(f, 'type', p, { required: true })!;
    const format = readString(f, 'format', p);
    if (format !== undefined && format !== REASONING_DETAILS_FORMAT) return;
    let key: 'signature' | 'data';
    if (type === 'reasoning.text') key = 'signature';
    else if (type === 'reasoning.encrypted') key = 'data';
    else return;
    const token = readString(f, key, p, { required: key === 'data' });
    if (token === undefined || token === '' || seen.has(token)) return;
    const decoded = decodeReasoningContent(token, sealer);
    if (decoded === null) invalid(at(p, key), 'is not reasoning content this service issued');
    seen.add(token);
    blocks.push(...decoded);
  });
  return blocks;
}
