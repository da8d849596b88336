import type { ServerResponse } from 'node:http';

/**
 * What a fake chat upstream should answer next. The same scenario given to the OpenAI and the
 * Anthropic fake yields the same canonical answer once each adapter has done its work.
 */
export interface FakeChatScenario {
  readonly text?: string;
  /** A thinking block before the text (Anthropic), or `reasoning_content` (OpenAI-compatible). */
  readonly reasoning?: string;
  /** Anthropic only: a `redacted_thinking` block with this data after the thinking block. */
  readonly redactedThinking?: string;
  /**
   * Anthropic only: the answer's text as these text blocks (instead of `text`), each with the
   * `citations` it has, streamed as the API does: a cited block's `citations_delta` events before
   * its text.
   */
  readonly textBlocks?: readonly { readonly text: string; readonly citations?: readonly Record<string, unknown>[] }[];
  /** Anthropic only: the answer ended on this stop sequence. */
  readonly stopSequence?: string;
  /**
   * The model refuses with this text: OpenAI-compatible `message.refusal` with `content: null`
   * (streamed as `delta.refusal` pieces, finish `stop`); Anthropic a text block of it and
   * `stop_reason: "refusal"`. Replaces `text`, `json` and tool calls.
   */
  readonly refusal?: string;
  /** Tool calls, answered when the request offers tools. */
  readonly toolCalls?: readonly { readonly name: string; readonly arguments: Record<string, unknown> }[];
  /** Anthropic only: a text block after the tool calls (when there are any), as a model that writes on after calling does. */
  readonly textAfterToolCalls?: string;
  /**
   * OpenAI-compatible only: stream the tool calls interleaved, as some servers of parallel calls
   * do: every call's first chunk (id, name, no arguments) first, then the argument fragments of
   * the calls in turn.
   */
  readonly interleaveToolCalls?: boolean;
  /** The answer when the request asks for JSON output (response_format, or Anthropic's forced tool). */
  readonly json?: Record<string, unknown>;
  /**
   * `length` to stop as if max_tokens was reached (OpenAI-compatible: inside the last tool call, if
   * any, its arguments cut halfway); `context_window` (Anthropic only) as if the model's context
   * window was (`stop_reason: model_context_window_exceeded`).
   */
  readonly finish?: 'stop' | 'length' | 'context_window';
  /**
   * `input` counts every input token; `cached` of them were read from a cache and (Anthropic only)
   * `written` written to one, `written1h` of those for an hour.
   */
  readonly usage?: { readonly input: number; readonly cached: number; readonly output: number; readonly written?: number; readonly written1h?: number };
  /** OpenAI-compatible only: `completion_tokens_details.reasoning_tokens` (part of the output; 0 unless set). */
  readonly reasoningTokens?: number;
  /**
   * Answer a streamed request with the whole JSON answer (`application/json`), as an upstream that
   * ignores `stream: true` does.
   */
  readonly ignoreStream?: boolean;
  /** The content type of a streamed answer (`text/event-stream; charset=utf-8` unless set). */
  readonly streamContentType?: string;
  /** OpenAI-compatible only: send this as `usage` instead of the counts (a server's malformed usage). */
  readonly rawUsage?: unknown;
  /** Leave usage out of the answer (a stream that ends without its usage). */
  readonly omitUsage?: boolean;
  /** Answer with this HTTP error in the provider's shape (and these headers, e.g. retry-after). */
  readonly error?: { readonly status: number; readonly type?: string; readonly message?: string; readonly headers?: Record<string, string> };
  /** Stream this many events, then an error event in the provider's shape. */
  readonly streamErrorAfter?: { readonly events: number; readonly type?: string; readonly message?: string };
  /** Stream this many events, then drop the connection. */
  readonly cutAfter?: number;
  /** Stream this many events, then send nothing more until the client hangs up. */
  readonly stallAfter?: number;
  /** Stream this many events, then wait until `until` settles before sending the rest (a test acts mid-stream). */
  readonly pauseAfter?: { readonly events: number; readonly until: Promise<unknown> };
  /** OpenAI-compatible only: write JSON with every character beyond ASCII as a `\\u` escape (Python's `json.dumps` default). */
  readonly asciiEscapes?: boolean;
  /** Write every event of the stream at once, so that they reach the service in one read. */
  readonly burst?: boolean;
  /** Never answer (not even headers) until the client hangs up. */
  readonly hang?: boolean;
  /** Answer only once this settles (a test holds requests at the upstream, then lets them go). */
  readonly waitFor?: Promise<unknown>;
}

export const DEFAULT_USAGE = { input: 40, cached: 0, output: 12 } as const;

/** A queue of scenarios; an empty queue answers with a plain greeting. */
export class ScenarioQueue {
  private readonly queue: FakeChatScenario[] = [];
  /** What an empty queue answers (a plain greeting unless set): a deployment that is always down. */
  otherwise: FakeChatScenario = { text: 'Hello from the fake upstream.' };
  enqueue(...scenarios: FakeChatScenario[]): void {
    this.queue.push(...scenarios);
  }
  next(): FakeChatScenario {
    return this.queue.shift() ?? this.otherwise;
  }
}

/** Writes SSE events one by one, honouring the scenario's failure modes. */
export async function writeEvents(res: ServerResponse, events: readonly string[], scenario: FakeChatScenario, errorEvent: () => string, headers: Record<string, string>): Promise<void> {
  res.writeHead(200, { ...headers, 'content-type': scenario.streamContentType ?? 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
  if (scenario.burst) {
    res.end(events.join(''));
    return;
  }
  for (let i = 0; i < events.length; i++) {
    if (scenario.streamErrorAfter?.events === i) {
      res.end(errorEvent());
      return;
    }
    if (scenario.cutAfter === i) {
      res.destroy();
      return;
    }
    if (scenario.stallAfter === i) return; // the client's abort closes it
    if (scenario.pauseAfter?.events === i) await scenario.pauseAfter.until.catch(() => {});
    res.write(events[i]);
    // Let each event leave as its own chunk, as a real upstream sends them.
    await new Promise((r) => setImmediate(r));
  }
  res.end();
}
