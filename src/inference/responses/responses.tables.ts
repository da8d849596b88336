import type { ColumnType } from 'kysely';
import type { ConversationItem, OutputItem } from '../formats/openai-responses/response-items.ts';

type Json<T> = ColumnType<T, string, string>;
type Timestamp = ColumnType<Date, Date | string, Date | string>;

/** One stored response: what it was given, what it answered, and the response it continues. */
export interface ResponsesTable {
  id: string;
  account_id: number;
  previous_response_id: string | null;
  model: string;
  input_items: Json<ConversationItem[]>;
  output_items: Json<OutputItem[]>;
  /** The response object as it was answered. */
  body: Json<Record<string, unknown>>;
  created_at: Timestamp;
  expires_at: Timestamp;
}

/** An output item of a stored response, by its id. */
export interface ResponseItemsTable {
  item_id: string;
  response_id: string;
  account_id: number;
  item: Json<OutputItem>;
}

export interface ResponsesTables {
  responses: ResponsesTable;
  response_items: ResponseItemsTable;
}
