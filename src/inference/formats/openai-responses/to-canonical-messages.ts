import type { CanonicalMessage, ReasoningBlock, ToolCall, UserContentPart } from '../../canonical/chat.ts';
import { decodeReasoningContent, type ReasoningSealer } from '../reasoning-content.ts';
import { customCallArguments } from './client-tools.ts';
import type { ConversationItem, InputFilePart, InputImagePart, InputTextPart, McpApprovalRequestItem, OutputTextPart, RefusalPart } from './response-items.ts';
import { readOpenAIFile } from '../document-input.ts';
import type { Fields } from '../read-fields.ts';

/** The name the model knows an MCP server's tool by (see exposeMcpTools). */
export type McpToolNamer = (serverLabel: string, tool: string) => string;

type Assistant = { role: 'assistant'; content: string; toolCalls: ToolCall[]; reasoning?: ReasoningBlock[] };

/** What the model is told about an approval request the user refused. */
export function deniedResult(reason: string | null): string {
  return reason ? `The user did not approve this tool call: ${reason}` : 'The user did not approve this tool call.';
}

/**
 * A conversation (the stored chain's items, then this request's) as canonical messages.
 * `instructions` come first as the system message; they belong to the request, never to the
 * stored chain. Tool calls of one turn (function calls, MCP calls) join the assistant message
 * before them; the results the gateway produced itself (MCP calls, refused approvals) follow
 * that message before anything else, so every upstream kind sees each call answered in order.
 * A reasoning item whose encrypted_content carries the upstream's blocks (Anthropic's signed
 * thinking, redacted thinking) starts the assistant turn they belong to, so the upstream gets them
 * back before that turn's text and tool calls (Anthropic requires the signed block before a
 * tool-use continuation with thinking on); their text alone is not sent, and neither is a token
 * that does not open with `sealer` (a stored item sealed under another key: the turn goes without
 * its blocks). Listings and pending approval requests are not sent to the model.
 */
export function toCanonicalMessages(
  instructions: string | null,
  items: readonly ConversationItem[],
  mcpName: McpToolNamer,
  sealer: ReasoningSealer,
): CanonicalMessage[] {
  const out: CanonicalMessage[] = [];
  if (instructions) out.push({ role: 'system', content: instructions });
  const approvals = new Map<string, McpApprovalRequestItem>();
  for (const item of items) if (item.type === 'mcp_approval_request') approvals.set(item.id, item);
  let pendingResults: CanonicalMessage[] = [];
  let open: Assistant | null = null;

  const flush = () => {
    out.push(...pendingResults);
    pendingResults = [];
    open = null;
  };
  const assistant = (): Assistant => {
    if (open && pendingResults.length === 0) return open;
    flush();
    const m: Assistant = { role: 'assistant', content: '', toolCalls: [] };
    out.push(m);
    open = m;
    return m;
  };

  for (const item of items) {
    switch (item.type) {
      case 'message': {
        if (item.role === 'assistant') {
          // A refusal the model gave is what it said in that turn.
          const text = item.content.map((p) => ('text' in p ? p.text : p.type === 'refusal' ? p.refusal : '')).join('');
          const a = assistant();
          // Text after tool calls in one turn starts a new assistant message.
          if (a.toolCalls.length > 0) {
            flush();
            const m: Assistant = { role: 'assistant', content: text, toolCalls: [] };
            out.push(m);
            open = m;
          } else a.content += text;
          break;
        }
        flush();
        if (item.role === 'user') {
          const parts: UserContentPart[] = item.content.map(inputPart);
          out.push({ role: 'user', content: parts });
        } else {
          out.push({ role: 'system', content: item.content.map((p) => ('text' in p ? p.text : '')).join('') });
        }
        break;
      }
      case 'function_call':
        assistant().toolCalls.push({ id: item.call_id, name: item.name, arguments: item.arguments });
        break;
      case 'custom_tool_call':
        // Upstreams know a custom tool as a function of one string parameter (client-tools.ts).
        assistant().toolCalls.push({ id: item.call_id, name: item.name, arguments: customCallArguments(item.input) });
        break;
      case 'function_call_output':
      case 'custom_tool_call_output':
        flush();
        if (typeof item.output === 'string') out.push({ role: 'tool', toolCallId: item.call_id, content: item.output });
        else {
          // Text and images: the adapters send the parts (Anthropic in the tool_result, an
          // OpenAI-compatible upstream as a user message after the tool messages).
          const parts: UserContentPart[] = item.output.map(inputPart);
          const content = item.output.map((p) => (p.type === 'input_text' ? p.text : '')).join('');
          out.push({ role: 'tool', toolCallId: item.call_id, content, parts });
        }
        break;
      case 'mcp_call':
        assistant().toolCalls.push({ id: item.id, name: mcpName(item.server_label, item.name), arguments: item.arguments });
        pendingResults.push({ role: 'tool', toolCallId: item.id, content: item.error !== null && item.error !== undefined ? `Error: ${item.error}` : (item.output ?? '') });
        break;
      case 'mcp_approval_response': {
        if (item.approve) break; // the mcp_call it led to carries the call and its result
        const req = approvals.get(item.approval_request_id);
        if (!req) break;
        assistant().toolCalls.push({ id: req.id, name: mcpName(req.server_label, req.name), arguments: req.arguments });
        pendingResults.push({ role: 'tool', toolCallId: req.id, content: deniedResult(item.reason) });
        break;
      }
      case 'reasoning': {
        const blocks = item.encrypted_content ? decodeReasoningContent(item.encrypted_content, sealer) : null;
        if (!blocks) break;
        let a = assistant();
        // Reasoning comes first in a turn: after text or calls it starts the next turn.
        if (a.content !== '' || a.toolCalls.length > 0) {
          flush();
          a = { role: 'assistant', content: '', toolCalls: [] };
          out.push(a);
          open = a;
        }
        a.reasoning = [...(a.reasoning ?? []), ...blocks];
        break;
      }
      case 'mcp_list_tools':
      case 'mcp_approval_request':
        break;
    }
  }
  flush();
  // A turn of reasoning alone (an answer cut short) is sent as no turn at all, as before.
  return out.map((m) => (m.role === 'assistant' && m.reasoning && m.content === '' && m.toolCalls.length === 0 ? { role: 'assistant', content: '', toolCalls: [] } : m));
}

/** A user message's or tool output's part; a file was checked when parsed, so reading it cannot fail. */
function inputPart(p: InputTextPart | InputImagePart | InputFilePart | OutputTextPart | RefusalPart): UserContentPart {
  // Only an assistant message has a refusal; read as text should one come here.
  if (p.type === 'refusal') return { type: 'text', text: p.refusal };
  if (p.type === 'input_image') return { type: 'image', url: p.image_url, detail: p.detail };
  if (p.type === 'input_file') return readOpenAIFile(p as unknown as Fields, 'input_file', true);
  return { type: 'text', text: p.text };
}
