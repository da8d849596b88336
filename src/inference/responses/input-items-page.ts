import { badRequest } from '../../shared/errors.ts';
import type { ConversationItem } from '../formats/openai-responses/response-items.ts';

/** The query of GET /v1/responses/{id}/input_items, read. */
export interface InputItemsQuery {
  readonly order: 'asc' | 'desc';
  readonly limit: number;
  readonly after: string | null;
  /** `include` has `reasoning.encrypted_content`: reasoning items show theirs (as on retrieve). */
  readonly encryptedReasoning: boolean;
}

/** OpenAI's list of items: a page of them, and where it starts and ends. */
export interface ItemList {
  readonly object: 'list';
  readonly data: readonly ConversationItem[];
  readonly first_id: string | null;
  readonly last_id: string | null;
  readonly has_more: boolean;
}

const DEFAULT_LIMIT = 20;
const MAX_LIMIT = 100;

function single(q: Record<string, unknown>, key: string): string | undefined {
  const v = q[key];
  if (v === undefined) return undefined;
  // A parameter given twice is one the client did not mean twice; the last one is what it meant last.
  const last = Array.isArray(v) ? v.at(-1) : v;
  return typeof last === 'string' ? last : undefined;
}

/**
 * `order` (asc or desc, OpenAI's default desc: newest first), `limit` (1 to 100, default 20),
 * `after` (an item id of the list: the page starts after it) and `include` (the `openai` SDK sends
 * `include[]=...`); each bad value is a 400 naming its parameter.
 */
export function readInputItemsQuery(query: unknown, include: readonly string[]): InputItemsQuery {
  const q = (query ?? {}) as Record<string, unknown>;
  const order = single(q, 'order') ?? 'desc';
  if (order !== 'asc' && order !== 'desc') throw badRequest('order: must be asc or desc');
  const rawLimit = single(q, 'limit');
  let limit = DEFAULT_LIMIT;
  if (rawLimit !== undefined) {
    limit = /^\d{1,3}$/.test(rawLimit) ? Number(rawLimit) : NaN;
    if (!(limit >= 1 && limit <= MAX_LIMIT)) throw badRequest(`limit: must be an integer from 1 to ${MAX_LIMIT}`);
  }
  const after = single(q, 'after') ?? null;
  if (after === '') throw badRequest('after: must not be empty');
  return { order, limit, after, encryptedReasoning: include.includes('reasoning.encrypted_content') };
}

/** A reasoning item as a listing shows it: its encrypted_content only when asked for, as on create and retrieve. */
function view(item: ConversationItem, encryptedReasoning: boolean): ConversationItem {
  if (item.type !== 'reasoning') return item;
  const { encrypted_content, ...rest } = item;
  return encryptedReasoning ? { ...rest, encrypted_content: encrypted_content ?? null } : rest;
}

/** The page of `items` (oldest first, as stored) that the query asks for. */
export function inputItemsPage(items: readonly ConversationItem[], q: InputItemsQuery): ItemList {
  const ordered = q.order === 'asc' ? items : [...items].reverse();
  let start = 0;
  if (q.after !== null) {
    const at = ordered.findIndex((i) => i.id === q.after);
    if (at < 0) throw badRequest(`after: no input item ${q.after} in this response`);
    start = at + 1;
  }
  const data = ordered.slice(start, start + q.limit).map((i) => view(i, q.encryptedReasoning));
  return {
    object: 'list',
    data,
    first_id: data[0]?.id ?? null,
    last_id: data.at(-1)?.id ?? null,
    has_more: start + q.limit < ordered.length,
  };
}
