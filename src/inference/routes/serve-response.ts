import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ModelConfig } from '../../config/catalog.ts';
import type { ResponsesConfig } from '../../config/responses.ts';
import { toAbortSignal } from '../../shared/cancel-signal.ts';
import { HttpError, badRequest, notFound } from '../../shared/errors.ts';
import type { Db } from '../../storage/database.ts';
import { computeCost } from '../billing/cost.ts';
import { DEFAULT_OUTPUT_RESERVATION_TOKENS, estimateCharge, type ChargeEstimate } from '../billing/estimate.ts';
import { CHAT_INPUT_MARGIN_TOKENS, estimateChatInput } from '../billing/estimate-input.ts';
import { textAroundCalls, type CanonicalChatRequest, type CanonicalChatResponse, type StreamPart, type ToolChoice, type ToolDefinition } from '../canonical/chat.ts';
import { createId } from '../canonical/create-id.ts';
import type { TextRunPart } from '../canonical/text-run.ts';
import type { Usage } from '../canonical/usage.ts';
import type { InputItem, ParsedResponsesRequest } from '../formats/openai-responses/parse-responses-request.ts';
import {
  needsApproval,
  type ConversationItem,
  type CustomToolCallItem,
  type CustomToolCallOutputItem,
  type FunctionCallItem,
  type FunctionCallOutputItem,
  type McpApprovalRequestItem,
  type McpListToolsItem,
  type McpServerSpec,
  type McpToolListing,
  type OutputItem,
} from '../formats/openai-responses/response-items.ts';
import { allowsMcpTool, clientToolDefinitions, upstreamClientTools } from '../formats/openai-responses/client-tools.ts';
import { ResponseRecorder, type McpCallRequest, type ResponseUsageCounts, type ToolKind } from '../formats/openai-responses/response-recorder.ts';
import { toCanonicalMessages } from '../formats/openai-responses/to-canonical-messages.ts';
import type { ReasoningSealer } from '../formats/reasoning-content.ts';
import { checkContext } from '../http/check-model-features.ts';
import { principalOf } from '../http/principal.ts';
import type { InferenceContext } from '../inference-context.ts';
import { PrivateAddressError, type McpClient, type McpSession } from '../mcp/mcp-client.ts';
import type { ResponseStore } from '../responses/response-store.ts';
import { withItemIds } from '../responses/input-item-ids.ts';
import { deleteResponse, findItems, loadChain } from '../responses/responses.repository.ts';
import { chatModelId } from '../routing/chat-model-id.ts';
import { routeModel, type ModelRoute } from '../routing/route-model.ts';
import { estimateChatInputTokens } from '../tokens/count-tokens.ts';
import type { UpstreamTarget } from '../upstream/upstream-target.ts';
import { failureStatus, withCreditHold, type CreditHold } from './credit-hold.ts';
import { startSse, type SseResponse } from './sse-response.ts';

export interface ResponsesDeps {
  readonly db: Db;
  readonly config: ResponsesConfig;
  readonly mcp: McpClient;
}

/** The deps and the store of stored responses, which the route group owns (responses.routes.ts). */
export interface ServeResponseDeps extends ResponsesDeps {
  readonly store: ResponseStore;
}

/** The tools an MCP server offers the model in this response, and the names the model knows them by. */
interface ServerTools {
  readonly spec: McpServerSpec;
  readonly tools: readonly McpToolListing[];
}

/** A model answer as batches of parts, whether it streamed or not, and what it consumed. */
interface ModelCall {
  /** A stream's parts, a batch per upstream read (text runs included), or a whole answer's as one batch (see partsOf). */
  readonly batches: AsyncIterable<readonly (StreamPart | TextRunPart)[]> | Iterable<readonly StreamPart[]>;
  usage(): { readonly usage: Usage; readonly estimated: boolean };
}

function partsOf(r: CanonicalChatResponse): ModelCall {
  const parts: StreamPart[] = [];
  // The upstream's blocks when it gave blocks (their signatures close them, as in a stream).
  if (r.reasoningBlocks) {
    for (const b of r.reasoningBlocks) {
      if (b.type === 'redacted_thinking') parts.push({ type: 'reasoning-delta', text: '', redacted: b.data });
      else parts.push({ type: 'reasoning-delta', text: b.thinking, ...(b.signature ? { signature: b.signature } : {}) });
    }
  } else if (r.reasoning) parts.push({ type: 'reasoning-delta', text: r.reasoning });
  // Text written after a call follows it, as the stream of the same answer gives it (one item order either way).
  const pieces = textAroundCalls(r);
  const text = (piece: string) => piece !== '' && parts.push({ type: 'text-delta', text: piece });
  text(pieces[0]!);
  if (r.refusal) parts.push({ type: 'refusal-delta', text: r.refusal });
  for (const [index, c] of r.toolCalls.entries()) {
    if (index > 0) text(pieces[index]!);
    parts.push({ type: 'tool-call-start', index, id: c.id, name: c.name });
    parts.push({ type: 'tool-call-delta', index, argumentsDelta: c.arguments });
  }
  if (r.toolCalls.length > 0) text(pieces.at(-1)!);
  parts.push({ type: 'finish', reason: r.finishReason });
  return { batches: [parts], usage: () => ({ usage: r.usage, estimated: r.usageEstimated }) };
}

function hasImages(items: readonly ConversationItem[]): number {
  return items.findIndex((i) => i.type === 'message' && i.content.some((p) => p.type === 'input_image'));
}

/** A function's or a custom tool's output: they pair with calls alike and take the same parts. */
const isToolOutput = (item: ConversationItem): item is FunctionCallOutputItem | CustomToolCallOutputItem =>
  item.type === 'function_call_output' || item.type === 'custom_tool_call_output';

/** The first function_call_output with an image part (a screenshot tool's result), or -1. */
function hasToolImages(items: readonly ConversationItem[]): number {
  return items.findIndex((i) => isToolOutput(i) && typeof i.output !== 'string' && i.output.some((p) => p.type === 'input_image'));
}

/**
 * A PDF file (data or URL) in a message or a tool output, or -1: read page by page as images, it
 * needs a model with vision; a plain-text file does not.
 */
function hasPdfFiles(items: readonly ConversationItem[]): number {
  const pdf = (p: { readonly type: string; readonly file_data?: string }) =>
    p.type === 'input_file' && !/^data:text\/plain[;,]/i.test(p.file_data ?? '');
  return items.findIndex(
    (i) => (i.type === 'message' && i.content.some(pdf)) || (isToolOutput(i) && typeof i.output !== 'string' && i.output.some(pdf)),
  );
}

/** The model-dependent checks, each a 400 naming the field of this protocol. */
function checkFeatures(model: ModelConfig, parsed: ParsedResponsesRequest, input: readonly ConversationItem[], history: readonly ConversationItem[]): void {
  if (!model.capabilities.vision) {
    const i = hasImages(input);
    if (i >= 0) throw badRequest(`input[${i}]: model ${model.id} does not accept images`);
    if (hasImages(history) >= 0) throw badRequest(`previous_response_id: the conversation has images and model ${model.id} does not accept images`);
    const t = hasToolImages(input);
    if (t >= 0) throw badRequest(`input[${t}]: model ${model.id} does not accept images in tool results`);
    if (hasToolImages(history) >= 0) throw badRequest(`previous_response_id: the conversation has images and model ${model.id} does not accept images`);
    const f = hasPdfFiles(input);
    if (f >= 0) throw badRequest(`input[${f}]: model ${model.id} does not accept PDF files`);
    if (hasPdfFiles(history) >= 0) throw badRequest(`previous_response_id: the conversation has PDF files and model ${model.id} does not accept them`);
  }
  if (parsed.maxOutputTokens !== undefined && model.maxOutput !== null && parsed.maxOutputTokens > model.maxOutput) {
    throw badRequest(`max_output_tokens: must be <= ${model.maxOutput} for model ${model.id}`);
  }
  if ((parsed.functionTools.length > 0 || parsed.customTools.length > 0 || parsed.mcpServers.length > 0) && !model.capabilities.tools) {
    throw badRequest(`tools: model ${model.id} does not support tools`);
  }
  if (parsed.responseFormat && !model.capabilities.jsonOutput) throw badRequest(`text.format: model ${model.id} does not support structured output`);
  if (parsed.stream && !model.capabilities.streaming) throw badRequest(`stream: model ${model.id} does not support streaming`);
}

/**
 * Items the client referred to by id (`item_reference`), from the account's stored responses; and
 * reasoning items sent back without their `encrypted_content` (a client that did not ask for it
 * sends the output items back as it got them) completed from the stored item of that id, as
 * OpenAI does for stored responses. A reasoning item whose id is unknown stays as it is.
 */
async function resolveReferences(deps: ResponsesDeps, accountId: number, input: readonly InputItem[], now: Date): Promise<ConversationItem[]> {
  const ids = input.flatMap((i) =>
    i.type === 'item_reference' || (i.type === 'reasoning' && (i.encrypted_content ?? null) === null && i.id !== '') ? [i.id] : [],
  );
  const found = await findItems(deps.db, accountId, ids, now);
  return input.map((item, i) => {
    if (item.type === 'reasoning') {
      const stored = found.get(item.id);
      return stored?.type === 'reasoning' && (item.encrypted_content ?? null) === null && stored.encrypted_content ? { ...item, encrypted_content: stored.encrypted_content } : item;
    }
    if (item.type !== 'item_reference') return item;
    const stored = found.get(item.id);
    if (!stored) throw badRequest(`input[${i}].id: no stored item ${item.id}`);
    return stored;
  });
}

/** The name the model sees for each MCP tool: its own, or `<server_label>__<name>` when another tool has that name. */
function exposeMcpTools(functions: readonly ToolDefinition[], servers: readonly ServerTools[]) {
  const count = new Map<string, number>();
  for (const f of functions) count.set(f.name, (count.get(f.name) ?? 0) + 1);
  for (const s of servers) for (const t of s.tools) count.set(t.name, (count.get(t.name) ?? 0) + 1);
  const byExposed = new Map<string, { spec: McpServerSpec; tool: McpToolListing }>();
  const exposedOf = (label: string, tool: string) => ((count.get(tool) ?? 0) > 1 ? `${label}__${tool}`.slice(0, 64) : tool);
  const definitions: ToolDefinition[] = [];
  for (const s of servers) {
    for (const t of s.tools) {
      const name = exposedOf(s.spec.server_label, t.name);
      byExposed.set(name, { spec: s.spec, tool: t });
      definitions.push({ name, parameters: t.input_schema, ...(t.description ? { description: t.description } : {}) });
    }
  }
  return { byExposed, exposedOf, definitions };
}

function filterAllowed(spec: McpServerSpec, tools: readonly McpToolListing[]): McpToolListing[] {
  return spec.allowed_tools === null ? [...tools] : tools.filter((t) => spec.allowed_tools!.includes(t.name));
}

/**
 * The reservation of a response: one model call without MCP tools; with them, up to maxRounds
 * calls, each worst-cased at its output cap, with the conversation growing by one output and one
 * capped tool result per round. Between rounds the loop also checks that the next round's worst
 * case still fits in what is held (see runRounds), so a partial hold cannot overdraw a balance.
 */
function holdEstimate(model: ModelConfig, baseInput: number, maxOutput: number | null, rounds: number, resultTokens: number): ChargeEstimate {
  // One round holds like a chat turn (a partial hold caps the output sent upstream). Tool rounds
  // each hold a bounded output allowance, so the sum stays a worst case a balance can cover.
  if (rounds <= 1) return estimateCharge(model, { inputTokens: baseInput, maxOutputTokens: maxOutput, inputMarginTokens: CHAT_INPUT_MARGIN_TOKENS });
  const perRoundOutput = roundOutput(maxOutput);
  let estimate = 0n;
  for (let k = 0; k < rounds; k++) {
    estimate += estimateCharge(model, { inputTokens: baseInput + k * (perRoundOutput + resultTokens), maxOutputTokens: perRoundOutput }).estimate;
  }
  return { estimate, minimum: estimateCharge(model, { inputTokens: baseInput, maxOutputTokens: perRoundOutput }).minimum };
}

/** The output each tool round may produce: max_output_tokens, or the default reservation. */
function roundOutput(maxOutput: number | null | undefined): number {
  return maxOutput ?? DEFAULT_OUTPUT_RESERVATION_TOKENS;
}

/**
 * The request's conversation, checked: the stored chain of previous_response_id, references
 * resolved, model features, MCP server addresses, approvals and call outputs; and the canonical
 * request it makes (`probe`, for the context check, the hold and the token count).
 */
async function readConversation(ctx: InferenceContext, deps: ResponsesDeps, accountId: number, parsed: ParsedResponsesRequest, sealer: ReasoningSealer) {
  const model = ctx.resolveModel(chatModelId(ctx.catalog, parsed.model), 'responses');
  const now = new Date(ctx.clock.now());
  let history: readonly ConversationItem[] = [];
  if (parsed.previousResponseId !== null) {
    const chain = await loadChain(deps.db, accountId, parsed.previousResponseId, now);
    if (chain.kind === 'missing') throw notFound('response not found');
    if (chain.kind === 'broken') {
      throw notFound(`response ${parsed.previousResponseId} continues a conversation whose earlier responses have expired or were deleted; start a new conversation`);
    }
    // Its output is not known yet: continuing it would leave out what it is still saying.
    if (chain.kind === 'running') throw badRequest(`previous_response_id: response ${parsed.previousResponseId} is still in progress; continue it once it has ended`);
    history = chain.items;
  }
  const input = await resolveReferences(deps, accountId, parsed.input, now);
  checkFeatures(model, parsed, input, history);

  for (const [i, s] of parsed.mcpServers.entries()) {
    try {
      await deps.mcp.checkUrl(s.server_url);
    } catch (e) {
      if (e instanceof PrivateAddressError) {
        const index = parsed.toolsEcho.findIndex((t) => t.type === 'mcp' && t.server_label === s.server_label);
        throw badRequest(`tools[${index < 0 ? i : index}].server_url: not allowed: ${e.message}`);
      }
      throw e;
    }
  }
  const known = [...history, ...input];
  const approvalRequests = new Map<string, McpApprovalRequestItem>();
  for (const item of known) if (item.type === 'mcp_approval_request') approvalRequests.set(item.id, item);
  input.forEach((item, i) => {
    if (item.type !== 'mcp_approval_response') return;
    const req = approvalRequests.get(item.approval_request_id);
    if (!req) throw badRequest(`input[${i}].approval_request_id: no approval request ${item.approval_request_id} in this conversation`);
    if (item.approve && !parsed.mcpServers.some((s) => s.server_label === req.server_label)) {
      throw badRequest(`input[${i}]: the approved call is to server_label ${req.server_label}, which is not in tools`);
    }
  });

  checkCallOutputs(history, input);
  checkItemIds(history, input);

  // The client's tools as sent upstream (custom tools as functions, only the allowed ones), so the hold and input_tokens count them.
  const probe = baseRequest(parsed, toCanonicalMessages(parsed.instructions, known, (_l, t) => t, sealer), upstreamClientTools(parsed), { type: 'auto' });
  return { model, now, history, input, probe };
}

/** POST /v1/responses/input_tokens: the input tokens of the request as POST /v1/responses would send it (an o200k estimate). */
export async function countResponseInputTokens(ctx: InferenceContext, deps: ResponsesDeps, request: FastifyRequest, parsed: ParsedResponsesRequest, sealer: ReasoningSealer): Promise<number> {
  const { probe } = await readConversation(ctx, deps, principalOf(request).accountId, parsed, sealer);
  return estimateChatInputTokens(probe);
}

/**
 * POST /v1/responses after parsing: rebuilds the conversation from the stored chain, lists MCP
 * tools (or reuses a listing from the chain), holds credits for the worst case of the tool rounds,
 * then runs model calls until the model answers, calls a client function, or waits for an
 * approval; MCP calls that need no approval are made here between rounds. Every model call is
 * billed from its usage; the response's usage is their sum.
 */
export async function serveResponse(
  ctx: InferenceContext,
  deps: ServeResponseDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  parsed: ParsedResponsesRequest,
  sealer: ReasoningSealer,
): Promise<object | undefined> {
  const accountId = principalOf(request).accountId;
  const { model, now, history, input, probe } = await readConversation(ctx, deps, accountId, parsed, sealer);
  const mcpRounds = parsed.mcpServers.length > 0 ? deps.config.mcp.maxRounds : 1;
  checkContext(model, probe, 'input');
  // MCP tools make the request agentic even before their listing is known.
  const route = routeModel(ctx.catalog, model, parsed.mcpServers.length > 0 && probe.tools.length === 0 ? { ...probe, tools: [{ name: 'mcp', parameters: {} }] } : probe, ctx.upstreams.health.takesCalls);
  const terms = {
    route,
    endpoint: 'responses' as const,
    charge: holdEstimate(route.billed, estimateChatInput(probe) + mcpListingAllowance(parsed), parsed.maxOutputTokens ?? null, mcpRounds, Math.ceil(deps.config.mcp.maxResultBytes / 3)),
  };

  return withCreditHold(ctx, request, reply, terms, (hold) => runResponse(ctx, deps, request, reply, { parsed, route, history, input, hold, accountId, now, sealer }));
}

/**
 * Each tool call is in the conversation once (stored or in this input), every
 * function_call_output answers a function_call before it (stored or in this input), and
 * every function_call is answered by an output after it once the conversation goes on past it (a
 * later message or output), as OpenAI requires. Sent on, either was refused by the upstream in its
 * own words (Anthropic: a `tool_result` without its `tool_use` or the reverse; OpenAI: a `tool`
 * message without `tool_calls` or the reverse), or answered by a lenient one: one 400 in OpenAI's
 * words, whatever upstream serves the model. Calls that end the conversation are left to the
 * upstream (docs/api-decisions.md, "Inference: eleventh audit").
 */
function checkCallOutputs(history: readonly ConversationItem[], input: readonly ConversationItem[]): void {
  // Custom tool calls and their outputs pair by call_id like function calls (either output answers either call: the upstream sees one kind).
  const isCall = (item: ConversationItem): item is FunctionCallItem | CustomToolCallItem => item.type === 'function_call' || item.type === 'custom_tool_call';
  const calls = new Set<string>();
  for (const item of history) if (isCall(item)) calls.add(item.call_id);
  input.forEach((item, i) => {
    if (isCall(item)) {
      // A call sent again (the whole history next to previous_response_id, say) is refused by
      // Anthropic in its own words and taken by other upstreams: one 400, naming the item.
      if (calls.has(item.call_id)) {
        throw badRequest(`input[${i}].call_id: the tool call ${item.call_id} is already in the conversation; send each call once (previous_response_id carries the earlier ones)`);
      }
      calls.add(item.call_id);
    } else if (isToolOutput(item) && !calls.has(item.call_id)) {
      const what = item.type === 'custom_tool_call_output' ? 'custom tool call output' : 'function call output';
      throw badRequest(`input[${i}].call_id: no tool call found for ${what} with call_id ${item.call_id}`);
    }
  });
  const known = [...history, ...input];
  const goesOn = (item: ConversationItem) => isToolOutput(item) || item.type === 'mcp_approval_response' || (item.type === 'message' && item.role !== 'assistant');
  // From the end, so each call sees what comes after it; the first unanswered call is named.
  const outputsAfter = new Set<string>();
  let goesOnAfter = false;
  let first: FunctionCallItem | CustomToolCallItem | null = null;
  let firstAt = 0;
  for (let k = known.length - 1; k >= 0; k--) {
    const item = known[k]!;
    if (isCall(item) && goesOnAfter && !outputsAfter.has(item.call_id)) [first, firstAt] = [item, k];
    if (isToolOutput(item)) outputsAfter.add(item.call_id);
    goesOnAfter ||= goesOn(item);
  }
  if (first === null) return;
  const i = firstAt - history.length;
  const what = first.type === 'custom_tool_call' ? 'custom tool call' : 'function call';
  throw badRequest(`${i < 0 ? 'input' : `input[${i}].call_id`}: no tool output found for ${what} ${first.call_id}`);
}

/**
 * Each item is in the conversation once. An item sent again (an output item or an `item_reference`
 * next to the previous_response_id that carries it, the same reference twice) reached the model
 * twice: its text doubled into one assistant turn. OpenAI refuses it (`Duplicate item found with id
 * ...`); so does this, naming the item, before any upstream call. Items without an id are new.
 */
function checkItemIds(history: readonly ConversationItem[], input: readonly ConversationItem[]): void {
  const ids = new Set<string>();
  for (const item of history) if (item.id) ids.add(item.id);
  input.forEach((item, i) => {
    if (!item.id) return;
    if (ids.has(item.id)) throw badRequest(`input[${i}].id: duplicate item found with id ${item.id}; send each item once (previous_response_id carries the earlier ones)`);
    ids.add(item.id);
  });
}

/** Tool listings are not known before the hold; each server's tools are counted at a fixed allowance. */
function mcpListingAllowance(parsed: ParsedResponsesRequest): number {
  return parsed.mcpServers.length * 2000;
}

function baseRequest(parsed: ParsedResponsesRequest, messages: CanonicalChatRequest['messages'], tools: readonly ToolDefinition[], toolChoice: ToolChoice): CanonicalChatRequest {
  return {
    messages,
    tools,
    ...(tools.length > 0 ? { toolChoice, parallelToolCalls: parsed.parallelToolCalls } : {}),
    ...(parsed.responseFormat ? { responseFormat: parsed.responseFormat } : {}),
    ...(parsed.maxOutputTokens === undefined ? {} : { maxTokens: parsed.maxOutputTokens }),
    ...(parsed.temperature === undefined ? {} : { temperature: parsed.temperature }),
    ...(parsed.topP === undefined ? {} : { topP: parsed.topP }),
    ...(parsed.user === undefined ? {} : { user: parsed.user }),
    ...(parsed.reasoningEffort === undefined ? {} : { reasoning: { effort: parsed.reasoningEffort } }),
    stop: [],
    stream: parsed.stream,
  };
}

interface ResponseRun {
  readonly parsed: ParsedResponsesRequest;
  readonly route: ModelRoute;
  readonly history: readonly ConversationItem[];
  readonly input: readonly ConversationItem[];
  readonly hold: CreditHold;
  readonly accountId: number;
  readonly now: Date;
  readonly sealer: ReasoningSealer;
}

async function runResponse(ctx: InferenceContext, deps: ServeResponseDeps, request: FastifyRequest, reply: FastifyReply, run: ResponseRun): Promise<object | undefined> {
  const { parsed, route, history, input, hold } = run;
  const id = createId('resp_');
  const recorder = new ResponseRecorder(
    {
      id,
      createdAt: Math.floor(run.now.getTime() / 1000),
      model: route.billed.id,
      instructions: parsed.instructions,
      previousResponseId: parsed.previousResponseId,
      store: parsed.store,
      tools: parsed.toolsEcho,
      toolChoice: toolChoiceEcho(parsed),
      parallelToolCalls: parsed.parallelToolCalls,
      // Unsent, both are the upstream's default 1 (OpenAI's and Anthropic's), which OpenAI echoes.
      temperature: parsed.temperature ?? 1,
      topP: parsed.topP ?? 1,
      maxOutputTokens: parsed.maxOutputTokens ?? null,
      text: parsed.textEcho,
      reasoningEffort: parsed.reasoningEffort ?? null,
      reasoningSummary: parsed.reasoningSummary ?? null,
      ...(parsed.reasoningSummaryByOldName === true ? { reasoningSummaryByOldName: true } : {}),
      metadata: parsed.metadata,
      truncation: parsed.truncation,
      user: parsed.user ?? null,
      safetyIdentifier: parsed.safetyIdentifier ?? null,
      maxToolCalls: parsed.maxToolCalls ?? null,
      promptCacheKey: parsed.promptCacheKey ?? null,
      topLogprobs: parsed.topLogprobs ?? 0,
    },
    parsed.stream,
    { sealer: run.sealer, encryptedReasoning: parsed.includeEncryptedReasoning },
  );
  recorder.start();
  let sse: SseResponse | null = null;
  const flush = async () => {
    if (!sse) return;
    sse.send(recorder.drain());
    if (sse.full) await sse.drained();
  };

  const sessions = new Map<string, Promise<McpSession>>();
  const session = (spec: McpServerSpec) => {
    let s = sessions.get(spec.server_label);
    if (!s) {
      s = deps.mcp.connect({ url: spec.server_url, headers: spec.headers }, toAbortSignal(hold.signal));
      s.catch(() => {});
      sessions.set(spec.server_label, s);
    }
    return s;
  };
  const callMcp = async (spec: McpServerSpec, call: McpCallRequest, approvalRequestId: string | null) => {
    const at = recorder.mcpCallStarted(call, approvalRequestId);
    await flush();
    let outcome: { output: string } | { error: string };
    try {
      outcome = await (await session(spec)).callTool(call.tool, call.arguments, toAbortSignal(hold.signal));
    } catch (e) {
      outcome = { error: `could not reach the MCP server: ${e instanceof Error ? e.message : String(e)}` };
    }
    recorder.mcpCallEnded(at, outcome);
    await flush();
  };

  // Stored with an id on every item, which input_items lists them by.
  const storedInput = parsed.store ? withItemIds(input) : input;
  const row = (body: object, outputItems: readonly OutputItem[]) => ({
    id,
    accountId: run.accountId,
    previousResponseId: parsed.previousResponseId,
    model: route.billed.id,
    inputItems: storedInput,
    outputItems,
    body: body as Record<string, unknown>,
    createdAt: run.now,
    expiresAt: new Date(run.now.getTime() + deps.config.retentionMs),
  });
  // A stored stream's in_progress row, written before `response.created` leaves, so the id it
  // announces can be retrieved while the stream runs; its end updates the row (StoredResponse.begun).
  // Streams only: a non-streamed answer is written once, when it is known.
  let begun = false;
  const begin = async () => {
    try {
      await deps.store(row(recorder.inProgress(), []));
      begun = true;
    } catch (e) {
      // The stream goes on; its end inserts the response as a stream without the row does.
      request.log.error({ err: e }, 'storing a streamed response as in progress failed');
    }
  };
  const store = async (body: object, outputItems: readonly OutputItem[]) => {
    try {
      // Group-committed with the other responses finishing now; resolves once this one is committed.
      await deps.store({ ...row(body, outputItems), begun });
    } catch (e) {
      if (!sse) throw e;
      request.log.error({ err: e }, 'storing a streamed response failed');
    }
  };

  const totals = { inputTokens: 0, cachedInputTokens: 0, outputTokens: 0, reasoningTokens: 0 };
  let status: 'completed' | 'incomplete' = 'completed';
  let incompleteReason: string | undefined;
  let httpStatus = 200;
  try {
    // Tool listings: reused from the conversation when a listing of the same server is in it.
    const servers: ServerTools[] = [];
    for (const spec of parsed.mcpServers) {
      const listed = [...history, ...input].filter((i): i is McpListToolsItem => i.type === 'mcp_list_tools' && i.server_label === spec.server_label && !i.error).at(-1);
      if (listed) {
        servers.push({ spec, tools: filterAllowed(spec, listed.tools) });
        continue;
      }
      const at = recorder.listingTools(spec.server_label);
      try {
        const listed = await (await session(spec)).listTools(toAbortSignal(hold.signal));
        const items = filterAllowed(
          spec,
          listed.map((t) => ({ name: t.name, description: t.description, input_schema: t.inputSchema, annotations: t.annotations })),
        );
        recorder.listedTools(at, { tools: items, error: null });
        servers.push({ spec, tools: items });
      } catch (e) {
        if (hold.signal.aborted) throw e;
        recorder.listedTools(at, { tools: [], error: `could not list the tools of the MCP server: ${e instanceof Error ? e.message : String(e)}` });
      }
    }
    // Every client tool counts for MCP name clashes, allowed or not, so a tool's name is the same on every turn.
    const exposed = exposeMcpTools(clientToolDefinitions(parsed), servers);
    const classify = (name: string): ToolKind => {
      if (parsed.functionTools.some((f) => f.name === name)) return { kind: 'function' };
      if (parsed.customTools.some((f) => f.name === name)) return { kind: 'custom' };
      const m = exposed.byExposed.get(name);
      return m ? { kind: 'mcp', serverLabel: m.spec.server_label, tool: m.tool.name } : { kind: 'function' };
    };
    const specOf = (label: string) => parsed.mcpServers.find((s) => s.server_label === label)!;

    // Calls the client approved in this request run before the model is asked again.
    for (const item of input) {
      if (item.type !== 'mcp_approval_response' || !item.approve) continue;
      const req = [...history, ...input].find((i): i is McpApprovalRequestItem => i.type === 'mcp_approval_request' && i.id === item.approval_request_id)!;
      await callMcp(specOf(req.server_label), { serverLabel: req.server_label, tool: req.name, arguments: req.arguments }, req.id);
    }

    // Under allowed_tools only the allowed tools go upstream, on every round (client-tools.ts).
    const allowedMcp = exposed.definitions.filter((d) => {
      const m = exposed.byExposed.get(d.name)!;
      return allowsMcpTool(parsed.toolChoice, m.spec.server_label, m.tool.name);
    });
    const tools = [...upstreamClientTools(parsed), ...allowedMcp];
    const maxRounds = servers.length > 0 ? deps.config.mcp.maxRounds : 1;
    for (let round = 1; ; round++) {
      const last = servers.length > 0 && round >= maxRounds;
      const choice: ToolChoice = last ? { type: 'none' } : round === 1 ? mapToolChoice(parsed, exposed.exposedOf) : { type: 'auto' };
      const messages = toCanonicalMessages(parsed.instructions, [...history, ...input, ...recorder.output], exposed.exposedOf, run.sealer);
      const base = baseRequest(parsed, messages, tools, choice);
      // Never ask the upstream for more output than the hold pays for.
      const allowance = servers.length > 0 ? roundOutput(parsed.maxOutputTokens) : hold.maxOutputTokens;
      const req = allowance !== null && (base.maxTokens === undefined || allowance < base.maxTokens) ? Object.assign({}, base, { maxTokens: allowance }) : base;
      if (round > 1) {
        const spent = computeCost(route.billed.pricing, hold.usage());
        const worst = estimateCharge(route.billed, { inputTokens: estimateChatInput(req), maxOutputTokens: roundOutput(parsed.maxOutputTokens) }).estimate;
        if (spent + worst > hold.held) {
          status = 'incomplete';
          incompleteReason = 'max_tool_calls';
          break;
        }
      }
      const { result: call, target } = await hold.attempt(async (t, signal): Promise<ModelCall> => {
        if (parsed.stream) {
          const s = await ctx.upstreams.chatStream(t, req, signal);
          return { batches: s.batches({ textRuns: true }), usage: () => s.usage() };
        }
        return partsOf(await ctx.upstreams.chat(t, req, signal));
      });
      if (parsed.stream && !sse) {
        if (parsed.store) await begin();
        sse = startSse(reply);
      }
      recorder.beginRound(classify);
      let finish: string = 'stop';
      let failure: unknown = null;
      try {
        // The events of one upstream read leave in one write.
        for await (const batch of call.batches) {
          for (const part of batch) {
            if (part.type === 'text-run') recorder.run(part.run);
            else {
              if (part.type === 'finish') finish = part.reason;
              recorder.part(part);
            }
          }
          await flush();
          // Leaving the loop closes the upstream request (the stream's iterator returns).
          if (hold.signal.aborted) break;
        }
      } catch (e) {
        failure = e;
      }
      record(hold, call, target, totals);
      if (hold.signal.aborted) throw hold.signal.reason ?? new Error('client closed');
      if (failure !== null) throw failure;
      const r = recorder.endRound(finish === 'length' || finish === 'content_filter');
      await flush();
      if (finish === 'length') {
        status = 'incomplete';
        incompleteReason = 'max_output_tokens';
        break;
      }
      if (finish === 'content_filter') {
        status = 'incomplete';
        incompleteReason = 'content_filter';
        break;
      }
      let executed = 0;
      for (const c of r.mcpCalls) {
        const spec = specOf(c.serverLabel);
        if (needsApproval(spec, c.tool)) recorder.approvalRequest(c);
        else {
          await callMcp(spec, c, null);
          executed++;
        }
      }
      await flush();
      if (executed === 0 || executed < r.mcpCalls.length || r.functionCalls > 0) break;
    }
  } catch (e) {
    await closeAll(sessions);
    if (!sse) throw e;
    // The stream already started: the failure is the response's end, not a status.
    httpStatus = hold.signal.aborted ? 499 : failureStatus(e);
    if (httpStatus >= 500 && httpStatus !== 499) request.log.warn({ err: e }, 'response stream failed after it started');
    const usage = totals;
    await settle(request, hold, httpStatus);
    if (!hold.signal.aborted) {
      const failed = recorder.finish('failed', usage, { error: { code: httpStatus === 429 ? 'rate_limit_exceeded' : 'server_error', message: e instanceof HttpError ? e.message : 'internal error' } });
      // Kept as OpenAI keeps failed responses, committed before `response.failed` as a completed one
      // is before `response.completed`. A continuation gets only the items that were whole: a cut
      // message is not something the model said, and a cut call would be owed an output.
      if (parsed.store) await store(failed, continuedItems(recorder.output, 'failed'));
      sse.send(recorder.drain());
    } else if (begun) {
      // A stream its client left is not kept (it never was): the row it had while it ran goes.
      await deleteResponse(deps.db, run.accountId, id, new Date(ctx.clock.now())).catch((err: unknown) => request.log.error({ err }, 'removing an abandoned response failed'));
    }
    sse.end();
    return undefined;
  }
  await closeAll(sessions);

  const body = recorder.finish(status, totals, { completedAt: Math.floor(ctx.clock.now() / 1000), ...(incompleteReason ? { incompleteReason } : {}) });
  if (parsed.store) await store(body, continuedItems(recorder.output, status));
  if (!sse) return body;
  await settle(request, hold, httpStatus);
  sse.send(recorder.drain());
  sse.end();
  return undefined;
}

/**
 * The output items a continuation (previous_response_id, item_reference) carries: all but what an
 * ending cut. A failure's cut item goes (the model did not finish saying it); an output cap's cut
 * text stays (it is the model's own ending), but its cut tool call goes, as a failure's: kept, it
 * would be owed an output (a 400 on the next turn) or send half-written arguments upstream.
 */
function continuedItems(output: readonly OutputItem[], status: 'completed' | 'incomplete' | 'failed'): OutputItem[] {
  return output.filter((item) => !('status' in item && item.status === 'incomplete' && (status === 'failed' || item.type !== 'message')));
}

function record(hold: CreditHold, call: ModelCall, target: UpstreamTarget, totals: { -readonly [K in keyof ResponseUsageCounts]: number }): void {
  const { usage, estimated } = call.usage();
  hold.record(usage, estimated, target);
  totals.inputTokens += usage.inputTokens;
  totals.cachedInputTokens += usage.cachedInputTokens;
  totals.outputTokens += usage.outputTokens;
  totals.reasoningTokens += usage.reasoningTokens ?? 0;
}

async function settle(request: FastifyRequest, hold: CreditHold, status: number): Promise<void> {
  try {
    await hold.finish(status);
  } catch (e) {
    request.log.error({ err: e }, 'settling a response stream failed; its hold stays until the stale-hold sweep');
  }
}

async function closeAll(sessions: Map<string, Promise<McpSession>>): Promise<void> {
  await Promise.all([...sessions.values()].map((s) => s.then((x) => x.close(), () => {})));
}

function mapToolChoice(parsed: ParsedResponsesRequest, exposedOf: (label: string, tool: string) => string): ToolChoice {
  const c = parsed.toolChoice;
  switch (c.type) {
    case 'auto':
    case 'none':
    case 'required':
      return { type: c.type };
    case 'function':
      return { type: 'tool', name: c.name };
    case 'mcp':
      return c.name === null ? { type: 'required' } : { type: 'tool', name: exposedOf(c.serverLabel, c.name) };
    case 'custom':
      return { type: 'tool', name: c.name };
    case 'allowed_tools':
      // The tools sent are the allowed ones; the mode is the choice among them.
      return { type: c.mode };
  }
}

function toolChoiceEcho(parsed: ParsedResponsesRequest): unknown {
  const c = parsed.toolChoice;
  if (c.type === 'auto' || c.type === 'none' || c.type === 'required') return c.type;
  if (c.type === 'function' || c.type === 'custom') return { type: c.type, name: c.name };
  if (c.type === 'allowed_tools') return c.echo;
  return { type: 'mcp', server_label: c.serverLabel, name: c.name };
}
