import type { JsonObject, ReasoningBlock, StreamPart } from '../../canonical/chat.ts';
import { createId } from '../../canonical/create-id.ts';
import { textsOfRun, type TextRun } from '../../canonical/text-run.ts';
import { encodeReasoningContent, type ReasoningSealer } from '../reasoning-content.ts';
import { CustomInputStream, customInputOf } from './client-tools.ts';
import type {
  CustomToolCallItem,
  FunctionCallItem,
  McpApprovalRequestItem,
  McpCallItem,
  McpListToolsItem,
  MessageItem,
  OutputItem,
  OutputTextPart,
  ReasoningItem,
  RefusalPart,
} from './response-items.ts';

/** The request's settings a response echoes, and its identity. */
export interface ResponseShell {
  readonly id: string;
  /** Unix seconds. */
  readonly createdAt: number;
  /** The brand id the client asked for. */
  readonly model: string;
  readonly instructions: string | null;
  readonly previousResponseId: string | null;
  readonly store: boolean;
  readonly tools: readonly JsonObject[];
  readonly toolChoice: unknown;
  readonly parallelToolCalls: boolean;
  readonly temperature: number | null;
  readonly topP: number | null;
  readonly maxOutputTokens: number | null;
  readonly text: JsonObject;
  readonly reasoningEffort: string | null;
  readonly reasoningSummary?: string | null;
  /** The client named the summary `generate_summary` (its deprecated name): echoed under both names. */
  readonly reasoningSummaryByOldName?: boolean;
  readonly metadata: Readonly<Record<string, string>> | null;
  readonly truncation: 'auto' | 'disabled';
  readonly user: string | null;
  readonly safetyIdentifier: string | null;
  readonly maxToolCalls: number | null;
  readonly promptCacheKey: string | null;
  readonly topLogprobs: number;
}

export interface ResponseUsageCounts {
  readonly inputTokens: number;
  readonly cachedInputTokens: number;
  readonly outputTokens: number;
  readonly reasoningTokens: number;
}

export type ResponseStatus = 'in_progress' | 'completed' | 'incomplete' | 'failed';

/** How the model's tool call by this name is answered: by the client (function, custom) or by an MCP server. */
export type ToolKind = { readonly kind: 'function' } | { readonly kind: 'custom' } | { readonly kind: 'mcp'; readonly serverLabel: string; readonly tool: string };

/** A call the model made to an MCP server's tool in one round; the gateway answers it. */
export interface McpCallRequest {
  readonly serverLabel: string;
  readonly tool: string;
  readonly arguments: string;
}

export interface RoundResult {
  /** Calls the client answers (function and custom tool calls): the response ends with them. */
  readonly functionCalls: number;
  readonly mcpCalls: readonly McpCallRequest[];
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** A thinking block being written: its text so far, its signature once it is closed. */
type OpenThinking = { readonly type: 'thinking'; thinking: string; signature?: string };

/** The reasoning item being written, its summary and content parts once text arrived, and its blocks. */
interface OpenReasoning {
  readonly item: Mutable<ReasoningItem>;
  readonly index: number;
  parts: { readonly summary: { type: 'summary_text'; text: string }; readonly text: { type: 'reasoning_text'; text: string } } | null;
  readonly blocks: (ReasoningBlock | OpenThinking)[];
  thinking: OpenThinking | null;
}

export interface RecorderOptions {
  /** Seals the reasoning blocks of a reasoning item into its `encrypted_content` (reasoning-content.ts). */
  readonly sealer: ReasoningSealer;
  /**
   * `include: ["reasoning.encrypted_content"]`: reasoning items show their `encrypted_content`.
   * The recorded items (what is stored) always have it.
   */
  readonly encryptedReasoning?: boolean;
}

/** The message item text goes to; `middle` is its delta events' text between the sequence number and the delta. */
interface OpenText {
  readonly item: Mutable<MessageItem>;
  readonly part: Mutable<OutputTextPart>;
  readonly index: number;
  readonly middle: string;
}

/** The message item a refusal goes to (its own: text before it closed, text after it opens another). */
interface OpenRefusal {
  readonly item: Mutable<MessageItem>;
  readonly part: Mutable<RefusalPart>;
  readonly index: number;
}

/** A text delta event's text up to its sequence number. */
const TEXT_DELTA_HEAD = 'event: response.output_text.delta\ndata: {"type":"response.output_text.delta","sequence_number":';

interface OpenCall {
  readonly kind: ToolKind;
  readonly name: string;
  args: string;
  /** The function_call or custom_tool_call item and its output index, for calls the client answers. */
  item?: Mutable<FunctionCallItem> | Mutable<CustomToolCallItem>;
  outputIndex?: number;
  /** A custom tool call's input, decoded from the arguments as they stream. */
  input?: CustomInputStream;
}

/**
 * Builds one response: its output items as the rounds of model calls and MCP calls produce them,
 * and, when streaming, the OpenAI event sequence for them: every event with an `event:` line
 * and a `sequence_number` counting from 0; `response.created` first, with the same id as
 * `response.completed`; every item and content part opened by its `added` event before any
 * delta names its index. Non-streamed responses use the same recorder without events, so both
 * answers are the same items.
 */
export class ResponseRecorder {
  readonly output: OutputItem[] = [];
  private seq = 0;
  private pending = '';
  private text: OpenText | null = null;
  private refusal: OpenRefusal | null = null;
  private reasoning: OpenReasoning | null = null;
  private calls: OpenCall[] = [];
  private classify: (name: string) => ToolKind = () => ({ kind: 'function' });

  constructor(
    private readonly shell: ResponseShell,
    private readonly streaming: boolean,
    private readonly options: RecorderOptions,
  ) {}

  /**
   * An item as the client sees it: a reasoning item's encrypted_content only when asked for. Not a
   * copy: an event serializes it at once, and the final response is taken after the last change.
   */
  private view(item: OutputItem): OutputItem {
    if (item.type !== 'reasoning') return item;
    const { encrypted_content, ...rest } = item;
    return this.options.encryptedReasoning ? { ...rest, encrypted_content: encrypted_content ?? null } : rest;
  }

  /** The SSE text produced since the last call. */
  drain(): string {
    const t = this.pending;
    this.pending = '';
    return t;
  }

  /** An event: `type` and `sequence_number`, then the fields (never empty), as one JSON object. */
  private emit(type: string, fields: object): void {
    if (!this.streaming) return;
    // Written around the fields' JSON rather than spread into a new object (a slow copy per event).
    this.pending += `event: ${type}\ndata: {"type":"${type}","sequence_number":${this.seq++},${JSON.stringify(fields).slice(1)}\n\n`;
  }

  private add(item: OutputItem): number {
    const index = this.output.length;
    this.output.push(item);
    if (this.streaming) this.emit('response.output_item.added', { output_index: index, item: this.view(item) });
    return index;
  }

  private done(index: number): void {
    if (this.streaming) this.emit('response.output_item.done', { output_index: index, item: this.view(this.output[index]!) });
  }

  /** The response as `response.created` shows it (what a retrieve answers while it is streamed). */
  inProgress(): object {
    return this.snapshot('in_progress', null);
  }

  /** `response.created` and `response.in_progress`. */
  start(): void {
    const r = this.snapshot('in_progress', null);
    this.emit('response.created', { response: r });
    this.emit('response.in_progress', { response: r });
  }

  /** Starts a model round; `classify` says which tool names belong to MCP servers. */
  beginRound(classify: (name: string) => ToolKind): void {
    this.classify = classify;
    this.calls = [];
  }

  /** One streamed part of the model's answer. */
  part(p: StreamPart): void {
    switch (p.type) {
      case 'text-delta': {
        if (p.text === '') return;
        this.closeReasoning();
        if (!this.text) {
          this.closeRefusal();
          const part: Mutable<OutputTextPart> = { type: 'output_text', text: '', annotations: [], logprobs: [] };
          const item: Mutable<MessageItem> = { id: createId('msg_'), type: 'message', status: 'in_progress', role: 'assistant', content: [] };
          const index = this.add(item);
          item.content = [part];
          this.text = { item, part, index, middle: `,"item_id":${JSON.stringify(item.id)},"output_index":${index},"content_index":0,"delta":` };
          this.emit('response.content_part.added', { item_id: item.id, output_index: index, content_index: 0, part: { ...part, text: '' } });
        }
        this.text.part.text += p.text;
        this.emit('response.output_text.delta', { item_id: this.text.item.id, output_index: this.text.index, content_index: 0, delta: p.text, logprobs: [] });
        return;
      }
      case 'refusal-delta': {
        if (p.text === '') return;
        this.closeOutputText();
        this.closeReasoning();
        if (!this.refusal) {
          const part: Mutable<RefusalPart> = { type: 'refusal', refusal: '' };
          const item: Mutable<MessageItem> = { id: createId('msg_'), type: 'message', status: 'in_progress', role: 'assistant', content: [] };
          const index = this.add(item);
          item.content = [part];
          this.refusal = { item, part, index };
          this.emit('response.content_part.added', { item_id: item.id, output_index: index, content_index: 0, part: { ...part } });
        }
        this.refusal.part.refusal += p.text;
        this.emit('response.refusal.delta', { item_id: this.refusal.item.id, output_index: this.refusal.index, content_index: 0, delta: p.text });
        return;
      }
      case 'reasoning-delta': {
        // The reasoning text is the item's summary (what clients of OpenAI's own models read, the
        // Vercel AI SDK among them) and its `reasoning_text` content (what open-weight models give
        // and the SDK's stream snapshot accumulates): one text, both places. The upstream's blocks
        // (thinking closed by its signature, redacted thinking) are kept for encrypted_content.
        const signature = p.signature !== undefined && p.signature !== '' ? p.signature : null;
        const redacted = p.redacted !== undefined && p.redacted !== '' ? p.redacted : null;
        if (p.text === '' && signature === null && redacted === null) return;
        this.closeText();
        const r = this.openReasoning();
        if (redacted !== null) {
          r.thinking = null;
          r.blocks.push({ type: 'redacted_thinking', data: redacted });
        }
        if (p.text !== '') {
          if (!r.parts) {
            r.parts = { summary: { type: 'summary_text', text: '' }, text: { type: 'reasoning_text', text: '' } };
            r.item.summary = [r.parts.summary];
            r.item.content = [r.parts.text];
            this.emit('response.reasoning_summary_part.added', { item_id: r.item.id, output_index: r.index, summary_index: 0, part: { type: 'summary_text', text: '' } });
            this.emit('response.content_part.added', { item_id: r.item.id, output_index: r.index, content_index: 0, part: { type: 'reasoning_text', text: '' } });
          }
          r.parts.summary.text += p.text;
          r.parts.text.text += p.text;
          this.emit('response.reasoning_summary_text.delta', { item_id: r.item.id, output_index: r.index, summary_index: 0, delta: p.text });
          this.emit('response.reasoning_text.delta', { item_id: r.item.id, output_index: r.index, content_index: 0, delta: p.text });
          this.thinkingBlock(r).thinking += p.text;
        }
        if (signature !== null) {
          this.thinkingBlock(r).signature = signature;
          r.thinking = null;
        }
        return;
      }
      case 'tool-call-start': {
        this.closeText();
        this.closeReasoning();
        const kind = this.classify(p.name);
        const call: OpenCall = { kind, name: p.name, args: '' };
        if (kind.kind === 'function') {
          const item: Mutable<FunctionCallItem> = { id: createId('fc_'), type: 'function_call', status: 'in_progress', call_id: p.id, name: p.name, arguments: '' };
          call.item = item;
          call.outputIndex = this.add(item);
        } else if (kind.kind === 'custom') {
          const item: Mutable<CustomToolCallItem> = { id: createId('ctc_'), type: 'custom_tool_call', status: 'in_progress', call_id: p.id, name: p.name, input: '' };
          call.item = item;
          call.input = new CustomInputStream();
          call.outputIndex = this.add(item);
        }
        this.calls[p.index] = call;
        return;
      }
      case 'tool-call-delta': {
        const call = this.calls[p.index];
        if (!call || p.argumentsDelta === '') return;
        call.args += p.argumentsDelta;
        if (call.item?.type === 'function_call') {
          call.item.arguments = call.args;
          this.emit('response.function_call_arguments.delta', { item_id: call.item.id, output_index: call.outputIndex, delta: p.argumentsDelta });
        } else if (call.item?.type === 'custom_tool_call' && call.input) {
          const text = call.input.push(p.argumentsDelta);
          if (text !== '') {
            call.item.input += text;
            this.emit('response.custom_tool_call_input.delta', { item_id: call.item.id, output_index: call.outputIndex, delta: text });
          }
        }
        return;
      }
      // No annotation type of the API fits a citation of a document given inline
      // (docs/api-decisions.md, "Inference: fourteenth audit"): the text stays one output_text.
      case 'citation':
      case 'text-break':
      case 'finish':
      case 'usage':
        return;
    }
  }

  /**
   * A run of text deltas (ChatStream.batches with text runs): what part() makes of each, with each
   * delta event written around the upstream's literal as it came instead of built and serialized.
   */
  run(run: TextRun): void {
    const texts = textsOfRun(run);
    if (!this.streaming) {
      for (const text of texts) this.part({ type: 'text-delta', text });
      return;
    }
    let from = 0;
    if (!this.text) {
      // The first delta opens the message item (its added events): a run's texts are never empty.
      this.part({ type: 'text-delta', text: texts[0]! });
      from = 1;
    }
    const t = this.text!;
    const { text, literals } = run;
    let out = '';
    for (let i = from; i < texts.length; i++) {
      t.part.text += texts[i]!;
      out += `${TEXT_DELTA_HEAD}${this.seq++}${t.middle}${text.slice(literals[2 * i]!, literals[2 * i + 1]!)},"logprobs":[]}\n\n`;
    }
    this.pending += out;
  }

  private closeRefusal(cutAt?: number): void {
    if (!this.refusal) return;
    const { item, part, index } = this.refusal;
    this.refusal = null;
    item.status = index === cutAt ? 'incomplete' : 'completed';
    this.emit('response.refusal.done', { item_id: item.id, output_index: index, content_index: 0, refusal: part.refusal });
    this.emit('response.content_part.done', { item_id: item.id, output_index: index, content_index: 0, part: { ...part } });
    this.done(index);
  }

  /** Closes the open message, the text's or the refusal's (at most one is open). */
  private closeText(cutAt?: number): void {
    this.closeRefusal(cutAt);
    this.closeOutputText(cutAt);
  }

  private closeOutputText(cutAt?: number): void {
    if (!this.text) return;
    const { item, part, index } = this.text;
    this.text = null;
    item.status = index === cutAt ? 'incomplete' : 'completed';
    this.emit('response.output_text.done', { item_id: item.id, output_index: index, content_index: 0, text: part.text, logprobs: [] });
    this.emit('response.content_part.done', { item_id: item.id, output_index: index, content_index: 0, part: { ...part } });
    this.done(index);
  }

  private openReasoning(): OpenReasoning {
    if (!this.reasoning) {
      const item: Mutable<ReasoningItem> = { id: createId('rs_'), type: 'reasoning', summary: [], content: [] };
      const index = this.add(item);
      this.reasoning = { item, index, parts: null, blocks: [], thinking: null };
    }
    return this.reasoning;
  }

  /** The thinking block text goes to: the open one, or a new one after a signed or redacted block. */
  private thinkingBlock(r: OpenReasoning): OpenThinking {
    if (!r.thinking) {
      r.thinking = { type: 'thinking', thinking: '' };
      r.blocks.push(r.thinking);
    }
    return r.thinking;
  }

  private closeReasoning(): void {
    if (!this.reasoning) return;
    const { item, index, parts, blocks } = this.reasoning;
    this.reasoning = null;
    if (parts) {
      const { summary, text } = parts;
      this.emit('response.reasoning_summary_text.done', { item_id: item.id, output_index: index, summary_index: 0, text: summary.text });
      this.emit('response.reasoning_summary_part.done', { item_id: item.id, output_index: index, summary_index: 0, part: { ...summary } });
      this.emit('response.reasoning_text.done', { item_id: item.id, output_index: index, content_index: 0, text: text.text });
      this.emit('response.content_part.done', { item_id: item.id, output_index: index, content_index: 0, part: { ...text } });
    }
    const encrypted = encodeReasoningContent(blocks, this.options.sealer);
    if (encrypted !== null) item.encrypted_content = encrypted;
    this.done(index);
  }

  /**
   * The output index of the item an ending cuts short (the output cap reached, a failure): the
   * open message or function call opened last. Those before it were whole when the next began.
   * OpenAI gives such an item `status: "incomplete"` (docs/api-decisions.md, "Inference:
   * thirteenth audit"); a client reading `completed` would take a cut answer or cut arguments for
   * whole ones.
   */
  private cutIndex(): number | undefined {
    let last = this.text?.index ?? this.refusal?.index;
    for (const call of this.calls) {
      if (call?.item && call.outputIndex !== undefined && (last === undefined || call.outputIndex > last)) last = call.outputIndex;
    }
    return last;
  }

  /**
   * Closes the round's open items (done events) and says which tool calls the model made. `cut`:
   * the round ended on the output cap (or a content filter), so its last open item is incomplete.
   */
  endRound(cut = false): RoundResult {
    const cutAt = cut ? this.cutIndex() : undefined;
    this.closeText(cutAt);
    this.closeReasoning();
    let functionCalls = 0;
    const mcpCalls: McpCallRequest[] = [];
    for (const call of this.calls) {
      if (!call) continue;
      if (call.item?.type === 'custom_tool_call' && call.outputIndex !== undefined) {
        functionCalls++;
        this.endCustomCall(call.item, call.outputIndex, call.args);
        call.item.status = call.outputIndex === cutAt ? 'incomplete' : 'completed';
        this.emit('response.custom_tool_call_input.done', { item_id: call.item.id, output_index: call.outputIndex, input: call.item.input });
        this.done(call.outputIndex);
      } else if (call.item && call.outputIndex !== undefined) {
        functionCalls++;
        call.item.status = call.outputIndex === cutAt ? 'incomplete' : 'completed';
        this.emit('response.function_call_arguments.done', { item_id: call.item.id, output_index: call.outputIndex, name: call.name, arguments: call.args });
        this.done(call.outputIndex);
      } else if (call.kind.kind === 'mcp') {
        mcpCalls.push({ serverLabel: call.kind.serverLabel, tool: call.kind.tool, arguments: call.args === '' ? '{}' : call.args });
      }
    }
    this.calls = [];
    return { functionCalls, mcpCalls };
  }

  /**
   * A custom call's input once its arguments are whole: what customInputOf makes of them. When the
   * streamed deltas are a prefix of it (the usual case, or nothing streamed), the rest goes as one
   * more delta, so the deltas add up to the input of the `.done` event.
   */
  private endCustomCall(item: Mutable<CustomToolCallItem>, index: number, args: string): void {
    const input = customInputOf(args);
    if (input.startsWith(item.input) && input.length > item.input.length) {
      this.emit('response.custom_tool_call_input.delta', { item_id: item.id, output_index: index, delta: input.slice(item.input.length) });
    }
    item.input = input;
  }

  /** Announces a listing of an MCP server's tools; call listedTools with its result. */
  listingTools(serverLabel: string): { id: string; index: number } {
    const item: McpListToolsItem = { id: createId('mcpl_'), type: 'mcp_list_tools', server_label: serverLabel, tools: [], error: null };
    const index = this.add(item);
    this.emit('response.mcp_list_tools.in_progress', { item_id: item.id, output_index: index });
    return { id: item.id, index };
  }

  listedTools(at: { id: string; index: number }, result: Pick<McpListToolsItem, 'tools' | 'error'>): McpListToolsItem {
    const item = { ...(this.output[at.index] as McpListToolsItem), ...result };
    this.output[at.index] = item;
    this.emit(result.error === null ? 'response.mcp_list_tools.completed' : 'response.mcp_list_tools.failed', { item_id: at.id, output_index: at.index });
    this.done(at.index);
    return item;
  }

  /** Announces an MCP call the gateway is about to make; call mcpCallEnded with its outcome. */
  mcpCallStarted(call: McpCallRequest, approvalRequestId: string | null): { id: string; index: number } {
    const item: McpCallItem = {
      id: createId('mcp_'),
      type: 'mcp_call',
      status: 'in_progress',
      server_label: call.serverLabel,
      name: call.tool,
      arguments: call.arguments,
      output: null,
      error: null,
      approval_request_id: approvalRequestId,
    };
    const index = this.add(item);
    this.emit('response.mcp_call_arguments.delta', { item_id: item.id, output_index: index, delta: call.arguments });
    this.emit('response.mcp_call_arguments.done', { item_id: item.id, output_index: index, arguments: call.arguments });
    this.emit('response.mcp_call.in_progress', { item_id: item.id, output_index: index });
    return { id: item.id, index };
  }

  mcpCallEnded(at: { id: string; index: number }, outcome: { output: string } | { error: string }): void {
    const failed = 'error' in outcome;
    const item: McpCallItem = {
      ...(this.output[at.index] as McpCallItem),
      status: failed ? 'failed' : 'completed',
      output: failed ? null : outcome.output,
      error: failed ? outcome.error : null,
    };
    this.output[at.index] = item;
    this.emit(failed ? 'response.mcp_call.failed' : 'response.mcp_call.completed', { item_id: at.id, output_index: at.index });
    this.done(at.index);
  }

  /** The model's MCP call stops here until the client approves it. */
  approvalRequest(call: McpCallRequest): McpApprovalRequestItem {
    const item: McpApprovalRequestItem = { id: createId('mcpr_'), type: 'mcp_approval_request', server_label: call.serverLabel, name: call.tool, arguments: call.arguments };
    const index = this.add(item);
    this.done(index);
    return item;
  }

  /**
   * Ends the response: `response.completed`, `response.incomplete` or `response.failed` with the
   * final object, which is returned (the non-streamed answer). `completedAt`: Unix seconds, now.
   */
  finish(
    status: Exclude<ResponseStatus, 'in_progress'>,
    usage: ResponseUsageCounts,
    extra: { error?: { code: string; message: string }; incompleteReason?: string; completedAt?: number } = {},
  ): object {
    // Items still open here are those a failure cut (endRound closed the rest).
    const cutAt = status === 'completed' ? undefined : this.cutIndex();
    this.closeText(cutAt);
    this.closeReasoning();
    for (const call of this.calls) {
      if (!call?.item || call.outputIndex === undefined) continue;
      // A custom call cut short shows the input its arguments had so far.
      if (call.item.type === 'custom_tool_call') call.item.input = customInputOf(call.args);
      call.item.status = call.outputIndex === cutAt ? 'incomplete' : 'completed';
      this.done(call.outputIndex);
    }
    this.calls = [];
    const r = {
      ...this.snapshot(status, usage),
      // OpenAI's completion time, only for a completed response; an ending without one keeps null.
      completed_at: status === 'completed' ? (extra.completedAt ?? this.shell.createdAt) : null,
      error: extra.error ?? null,
      incomplete_details: extra.incompleteReason ? { reason: extra.incompleteReason } : null,
    };
    this.emit(status === 'completed' ? 'response.completed' : status === 'failed' ? 'response.failed' : 'response.incomplete', { response: r });
    return r;
  }

  private snapshot(status: ResponseStatus, usage: ResponseUsageCounts | null) {
    const s = this.shell;
    return {
      id: s.id,
      object: 'response',
      created_at: s.createdAt,
      status,
      completed_at: null as number | null,
      error: null,
      incomplete_details: null,
      instructions: s.instructions,
      max_output_tokens: s.maxOutputTokens,
      model: s.model,
      output: status === 'in_progress' ? [] : this.output.map((item) => this.view(item)),
      parallel_tool_calls: s.parallelToolCalls,
      previous_response_id: s.previousResponseId,
      reasoning: {
        effort: s.reasoningEffort,
        summary: s.reasoningSummary ?? null,
        ...(s.reasoningSummaryByOldName === true ? { generate_summary: s.reasoningSummary ?? null } : {}),
      },
      store: s.store,
      temperature: s.temperature,
      text: s.text,
      tool_choice: s.toolChoice,
      tools: s.tools,
      top_p: s.topP,
      truncation: s.truncation,
      usage: usage === null ? null : toUsage(usage),
      user: s.user,
      safety_identifier: s.safetyIdentifier,
      max_tool_calls: s.maxToolCalls,
      prompt_cache_key: s.promptCacheKey,
      // The tier that served the request, as OpenAI answers it: there is only the default one here.
      service_tier: 'default',
      top_logprobs: s.topLogprobs,
      background: false,
      metadata: s.metadata ?? {},
    };
  }
}

export function toUsage(u: ResponseUsageCounts) {
  return {
    input_tokens: u.inputTokens,
    input_tokens_details: { cached_tokens: u.cachedInputTokens },
    output_tokens: u.outputTokens,
    output_tokens_details: { reasoning_tokens: u.reasoningTokens },
    total_tokens: u.inputTokens + u.outputTokens,
  };
}

