import type { CanonicalChatRequest, JsonObject } from '../../canonical/chat.ts';

export interface AnthropicTool {
  name: string;
  description?: string;
  input_schema: JsonObject;
  cache_control?: JsonObject;
}

export type AnthropicToolChoice =
  | { type: 'auto' | 'any'; disable_parallel_tool_use?: boolean }
  | { type: 'tool'; name: string; disable_parallel_tool_use?: boolean }
  | { type: 'none' };

export interface PreparedAnthropicTools {
  tools?: AnthropicTool[];
  tool_choice?: AnthropicToolChoice;
  /** Name of the tool standing for structured output; its input is the JSON answer. */
  jsonToolName: string | null;
}

const JSON_TOOL = 'json_response';

/**
 * Tools and tool choice for the Messages API. Structured output uses a forced tool whose input
 * schema is the requested JSON schema (the approach Anthropic documents for JSON output, and
 * which works on every Claude model): alone it is forced by name; next to the client's tools the
 * model must call some tool (`any`), one at a time, so the answer is either the JSON or a tool call.
 */
export function prepareAnthropicTools(request: CanonicalChatRequest): PreparedAnthropicTools {
  const choice = request.toolChoice;
  const userTools: AnthropicTool[] =
    choice?.type === 'none' && request.responseFormat
      ? []
      : request.tools.map((t) => ({
          name: t.name,
          ...(t.description !== undefined ? { description: t.description } : {}),
          // The API requires `type: "object"`; a client's schema may leave it out (the formats
          // refuse any other type), so it is added (docs/api-decisions.md, "Inference: twelfth audit").
          input_schema: t.parameters.type === undefined ? { type: 'object', ...t.parameters } : t.parameters,
          ...(t.cacheControl !== undefined ? { cache_control: t.cacheControl } : {}),
        }));
  const noParallel = request.parallelToolCalls === false ? { disable_parallel_tool_use: true } : {};

  const rf = request.responseFormat;
  if (rf) {
    const taken = new Set(userTools.map((t) => t.name));
    let name = JSON_TOOL;
    for (let i = 1; taken.has(name); i++) name = `${JSON_TOOL}_${i}`;
    const jsonTool: AnthropicTool = {
      name,
      description:
        rf.type === 'json_schema' && rf.description !== undefined
          ? rf.description
          : 'Give the final answer as this tool input: a JSON object.',
      input_schema: rf.type === 'json_schema' ? rf.schema : { type: 'object', additionalProperties: true },
    };
    const tool_choice: AnthropicToolChoice =
      userTools.length === 0
        ? { type: 'tool', name }
        : choice?.type === 'tool'
          ? { type: 'tool', name: choice.name }
          : { type: 'any', disable_parallel_tool_use: true };
    return { tools: [...userTools, jsonTool], tool_choice, jsonToolName: name };
  }

  if (userTools.length === 0) return { jsonToolName: null };
  let tool_choice: AnthropicToolChoice | undefined;
  switch (choice?.type) {
    case undefined:
      tool_choice = request.parallelToolCalls === false ? { type: 'auto', ...noParallel } : undefined;
      break;
    case 'auto':
      tool_choice = { type: 'auto', ...noParallel };
      break;
    case 'required':
      tool_choice = { type: 'any', ...noParallel };
      break;
    case 'tool':
      tool_choice = { type: 'tool', name: choice.name, ...noParallel };
      break;
    case 'none':
      tool_choice = { type: 'none' };
      break;
  }
  return { tools: userTools, ...(tool_choice ? { tool_choice } : {}), jsonToolName: null };
}
