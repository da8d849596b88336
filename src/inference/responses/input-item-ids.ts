import { createId } from '../canonical/create-id.ts';
import type { ConversationItem } from '../formats/openai-responses/response-items.ts';

/**
 * The prefix of a stored input item's id, by type, as the service names the output items of each
 * type (response-recorder.ts); outputs and approval responses have their own. The migration that
 * gave ids to items stored before uses the same (2026_11_29_20_response_input_item_ids.ts).
 */
export const INPUT_ITEM_ID_PREFIX: Readonly<Record<ConversationItem['type'], string>> = {
  message: 'msg_',
  function_call: 'fc_',
  function_call_output: 'fco_',
  custom_tool_call: 'ctc_',
  custom_tool_call_output: 'ctco_',
  reasoning: 'rs_',
  mcp_list_tools: 'mcpl_',
  mcp_call: 'mcp_',
  mcp_approval_request: 'mcpr_',
  mcp_approval_response: 'mcpa_',
};

const hasId = (item: ConversationItem): boolean => typeof item.id === 'string' && item.id !== '';

/**
 * The input as it is stored: every item with an id, as OpenAI lists input items (GET
 * /v1/responses/{id}/input_items); an item the client sent with an id keeps it. The items are
 * otherwise unchanged (ids are not sent upstream), and the array is the same when all have one.
 */
export function withItemIds(items: readonly ConversationItem[]): readonly ConversationItem[] {
  if (items.every(hasId)) return items;
  return items.map((item) => (hasId(item) ? item : ({ ...item, id: createId(INPUT_ITEM_ID_PREFIX[item.type]) } as ConversationItem)));
}
