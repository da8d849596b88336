import { countCacheMarkers, withRoomForMarkers } from './cache-markers.ts';
import { expectFields, invalid, isFields, readBody, readEnum, readString, type Fields } from '../read-fields.ts';

/**
 * Message threads (Anthropic's `thread` request field, beta `message-threads-2026-08-12`): the
 * server holds a conversation between turns, so each turn sends only its new messages. `create`
 * asks that this turn's conversation be kept under the answer's `msg_` id; `continue` resumes from
 * such an answer. The thread's `system` and `tools` are fixed by the turn that creates it.
 */
export type ThreadParam = { readonly type: 'create' } | { readonly type: 'continue'; readonly previousMessageId: string };

/** The fields a thread takes from the turn that created it; a continuing turn may not send them. */
export const THREAD_CREATE_ONLY = ['system', 'tools'] as const;

/** The request's `thread`, or null when it has none. 400 naming the field when malformed. */
export function readThreadParam(rawBody: unknown): ThreadParam | null {
  const body = readBody(rawBody);
  const v = body.thread;
  if (v === undefined || v === null) return null;
  const thread = expectFields(v, 'thread');
  const type = readEnum(thread, 'type', 'thread', ['create', 'continue'], { required: true })!;
  if (type === 'create') return { type };
  const previousMessageId = readString(thread, 'previous_message_id', 'thread', { required: true, nonEmpty: true })!;
  return { type, previousMessageId };
}

/** What a stored thread gives a continuing turn (message-threads.repository.ts). */
export interface ThreadHistory {
  readonly system: unknown;
  readonly tools: unknown;
  readonly messages: readonly unknown[];
}

/**
 * The whole request a continuing turn stands for: its own fields, the thread's `system` and
 * `tools`, and the thread's messages followed by its own. 400 when it sets a create-only field.
 * The thread's oldest `cache_control` markers are left out when the turn's own would bring the
 * request past Anthropic's four (cache-markers.ts).
 */
export function continuedBody(rawBody: unknown, stored: ThreadHistory): Fields {
  const body = readBody(rawBody);
  for (const field of THREAD_CREATE_ONLY) {
    if (body[field] !== undefined && body[field] !== null) {
      invalid(field, 'cannot be set on a turn that continues a thread: the thread keeps the one of the turn that created it');
    }
  }
  const own = body.messages;
  if (own !== undefined && own !== null && !Array.isArray(own)) invalid('messages', 'must be an array');
  // A top-level `cache_control` marks one of the turn's blocks (parse-messages-request.ts).
  const topLevel = body.cache_control !== undefined && body.cache_control !== null ? 1 : 0;
  const history = withRoomForMarkers(stored, countCacheMarkers({ messages: own }) + topLevel);
  const full: Fields = { ...body, messages: [...history.messages, ...((own as unknown[] | undefined) ?? [])] };
  delete full.thread;
  if (history.system !== undefined) full.system = history.system;
  if (history.tools !== undefined) full.tools = history.tools;
  return full;
}

/** The turn's own messages, as the client sent them (kept with its answer). */
export function ownMessages(rawBody: unknown): unknown[] {
  const body = isFields(rawBody) ? rawBody : {};
  return Array.isArray(body.messages) ? body.messages : [];
}

/** The answer as the assistant message a later turn of the thread replays. */
export function answerAsMessage(answer: unknown): { role: 'assistant'; content: unknown } {
  const content = isFields(answer) ? answer.content : undefined;
  return { role: 'assistant', content: content ?? [] };
}
