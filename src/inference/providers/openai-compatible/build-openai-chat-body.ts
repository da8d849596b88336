import type { CanonicalChatRequest, ToolChoice } from '../../canonical/chat.ts';
import { convertToOpenAIChatMessages } from './convert-to-openai-chat-messages.ts';

function toolChoice(choice: ToolChoice): string | { type: 'function'; function: { name: string } } {
  return choice.type === 'tool' ? { type: 'function', function: { name: choice.name } } : choice.type;
}

/**
 * The /chat/completions body for an OpenAI-compatible upstream. Streams always ask for the usage
 * chunk, which billing needs whether or not the client asked for it. `max_tokens` (not
 * `max_completion_tokens`) is sent because every OpenAI-compatible server understands it.
 */
export function buildOpenAIChatBody(request: CanonicalChatRequest, upstreamModel: string, stream: boolean) {
  const hasTools = request.tools.length > 0;
  const rf = request.responseFormat;
  return {
    model: upstreamModel,
    messages: convertToOpenAIChatMessages(request.messages),
    ...(hasTools
      ? {
          tools: request.tools.map((t) => ({
            type: 'function' as const,
            function: {
              name: t.name,
              ...(t.description !== undefined ? { description: t.description } : {}),
              parameters: t.parameters,
            },
          })),
          ...(request.toolChoice ? { tool_choice: toolChoice(request.toolChoice) } : {}),
          // Only valid next to tools.
          ...(request.parallelToolCalls !== undefined ? { parallel_tool_calls: request.parallelToolCalls } : {}),
        }
      : {}),
    ...(rf?.type === 'json_object' ? { response_format: { type: 'json_object' } } : {}),
    ...(rf?.type === 'json_schema'
      ? {
          response_format: {
            type: 'json_schema',
            json_schema: {
              name: rf.name,
              schema: rf.schema,
              ...(rf.description !== undefined ? { description: rf.description } : {}),
              ...(rf.strict !== undefined ? { strict: rf.strict } : {}),
            },
          },
        }
      : {}),
    ...(request.maxTokens !== undefined ? { max_tokens: request.maxTokens } : {}),
    ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
    ...(request.topP !== undefined ? { top_p: request.topP } : {}),
    ...(request.stop.length > 0 ? { stop: request.stop } : {}),
    ...(request.user !== undefined ? { user: request.user } : {}),
    // Only an effort the client named: a thinking budget alone (the messages route) has no
    // OpenAI equivalent, and servers without reasoning may refuse the parameter.
    ...(request.reasoning?.effort !== undefined ? { reasoning_effort: request.reasoning.effort } : {}),
    ...(stream ? { stream: true, stream_options: { include_usage: true } } : {}),
  };
}
