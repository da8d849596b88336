import { badRequest } from '../../../shared/errors.ts';
import { isFields, type Fields } from '../read-fields.ts';

/** Anthropic's limit of blocks with `cache_control` in one request. */
export const MAX_CACHE_MARKERS = 4;

/**
 * Anthropic answers a fifth marker with a 400 in these words. The service answers it on every
 * model, whatever upstream serves it, as it checks each marker's shape (docs/api-decisions.md,
 * "Messages: sixteenth audit" and "Inference: eighteenth audit").
 */
export const tooManyCacheMarkers = (found: number): string =>
  `A maximum of ${MAX_CACHE_MARKERS} blocks with cache_control may be provided. Found ${found}.`;

const list = (v: unknown): Fields[] => (Array.isArray(v) ? v.filter(isFields) : []);
const marked = (f: Fields): boolean => f.cache_control !== undefined && f.cache_control !== null;

/** The blocks of messages that may carry a marker, in order: content blocks and the blocks inside tool results. */
function messageBlocks(messages: unknown): Fields[] {
  return list(messages).flatMap((m) => list(m.content).flatMap((b) => (b.type === 'tool_result' ? [b, ...list(b.content)] : [b])));
}

/**
 * The blocks of a messages request body that may carry a marker, in the order Anthropic reads the
 * prompt (tools, system, messages), as the API counts them.
 */
function markableBlocks(body: Fields): Fields[] {
  return [...list(body.tools), ...list(body.system), ...messageBlocks(body.messages)];
}

/** How many markers a messages request body (or a list of messages) carries. */
export function countCacheMarkers(body: Fields): number {
  return markableBlocks(body).filter(marked).length;
}

/** 400 in Anthropic's words when the request carries more than four markers (`added`: markers the service placed, beside the body's). */
export function checkCacheMarkers(body: Fields, added = 0): void {
  const found = countCacheMarkers(body) + added;
  if (found > MAX_CACHE_MARKERS) throw badRequest(tooManyCacheMarkers(found));
}

/** A block without its marker (a copy: the stored thread is left as it was). */
function unmarked(b: Fields): Fields {
  const { cache_control: _dropped, ...rest } = b;
  return rest;
}

/**
 * The thread's system, tools and messages with only as many markers as the continuing turn leaves
 * room for: `own` markers are the turn's own, so `4 - own` of the carried ones are kept, the
 * latest in prompt order, and the oldest are dropped. A thread keeps every turn's markers, so
 * without this a conversation whose each turn was within the limit failed once they added up to
 * five; the latest markers cover the longest prefix, the one a later turn can read back.
 */
export function withRoomForMarkers<T extends { readonly system: unknown; readonly tools: unknown; readonly messages: readonly unknown[] }>(history: T, own: number): T {
  const carried = countCacheMarkers({ tools: history.tools, system: history.system, messages: history.messages });
  let drop = Math.min(carried, carried + own - MAX_CACHE_MARKERS);
  if (drop <= 0) return history;
  const strip = (b: Fields): Fields => {
    if (drop > 0 && marked(b)) {
      drop -= 1;
      return unmarked(b);
    }
    return b;
  };
  const blocks = (v: unknown): unknown => (Array.isArray(v) ? v.map((b) => (isFields(b) ? strip(b) : b)) : v);
  const tools = blocks(history.tools);
  const system = blocks(history.system);
  const messages = history.messages.map((m) => {
    if (!isFields(m) || !Array.isArray(m.content)) return m;
    const content = m.content.map((b: unknown) => {
      if (!isFields(b)) return b;
      const block = strip(b);
      return block.type === 'tool_result' && Array.isArray(block.content) ? { ...block, content: blocks(block.content) } : block;
    });
    return { ...m, content };
  });
  return { ...history, tools, system, messages };
}
