import type { ColumnType } from 'kysely';

type Json<T> = ColumnType<T, string, string>;
type Timestamp = ColumnType<Date, Date | string, Date | string>;

/** One answered turn of a message thread, keyed by its answer's `msg_` id. */
export interface MessageThreadsTable {
  id: string;
  account_id: number;
  /** The turn this one continues; null for the turn that created the thread. */
  parent_id: string | null;
  /** The thread's `system` and `tools` as the creating turn gave them (null on later turns). */
  system: Json<unknown> | null;
  tools: Json<unknown> | null;
  /** The turn's new messages as the client sent them, then the answer as an assistant message. */
  messages: Json<unknown[]>;
  created_at: Timestamp;
  expires_at: Timestamp;
}

export interface MessageThreadsTables {
  message_threads: MessageThreadsTable;
}
