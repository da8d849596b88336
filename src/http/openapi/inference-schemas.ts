/**
 * Request and response schemas of the model endpoints, for the OpenAPI document only: their
 * bodies are read by the formats layer (whose 400s name fields in the mirrored protocol's
 * terms), so a route schema would both validate twice and change the messages.
 */
type Schema = Record<string, unknown>;

const str = { type: 'string' };
const int = { type: 'integer' };
const num = { type: 'number' };
const bool = { type: 'boolean' };
const obj = (properties: Record<string, unknown>, required: string[] = [], extra: Schema = {}): Schema => ({
  type: 'object',
  properties,
  ...(required.length ? { required } : {}),
  ...extra,
});

const Model = { type: 'string', description: 'a brand model id (`GET /v1/models`), e.g. svc-fast' };
/** The chat protocols fall back to the configured default model when `model` is left out (docs/routing.md). */
const ChatModel = { ...Model, description: `${Model.description}; optional: left out, the configured default model (svc-shiplow as shipped) serves the request` };
/** Images default to the catalog's one image model, as OpenAI's images API defaults its model (image-model-id.ts). */
const ImageModel = { type: 'string', description: 'a brand image model id (`GET /v1/available-models`, type image), e.g. svc-image; optional: left out, the catalog\'s image model serves the request when it has exactly one' };
const Stop = { oneOf: [str, { type: 'array', items: str, maxItems: 4 }] };
const Usage = obj({
  prompt_tokens: int,
  completion_tokens: int,
  total_tokens: int,
  prompt_tokens_details: obj({ cached_tokens: int }),
  completion_tokens_details: obj({ reasoning_tokens: { ...int, description: 'part of completion_tokens' } }),
});

const Content = {
  oneOf: [
    str,
    {
      type: 'array',
      items: obj({ type: { type: 'string', enum: ['text', 'image_url'] }, text: str, image_url: obj({ url: str, detail: { type: 'string', enum: ['auto', 'low', 'high'] } }) }, ['type']),
    },
  ],
};
const ReasoningDetail = obj(
  {
    type: { type: 'string', enum: ['reasoning.text', 'reasoning.encrypted'], description: 'reasoning.text: a thinking block (its text); reasoning.encrypted: redacted thinking' },
    text: { type: 'string', description: 'the thinking text (in a stream: a piece of it; empty on the entry that closes a block)' },
    signature: { type: 'string', description: 'a sealed reasoning token holding the whole block; only on blocks the upstream signed' },
    data: { type: 'string', description: 'a sealed reasoning token holding the redacted block' },
    format: { type: 'string', enum: ['svc-reasoning-v1'] },
    index: { type: 'integer', description: 'the block among the turn\'s blocks; a stream\'s entries of one index make one block' },
  },
  ['type'],
  {
    description:
      "OpenRouter's reasoning_details convention. Send the entries back unchanged on the assistant message of the next request: a signed or redacted block goes back to the upstream first in that turn (an Anthropic tool-use continuation keeps thinking on). A signature or data the service did not issue to the account is a 400; entries of another format are ignored.",
  },
);
const ToolCall = obj({ id: str, type: { type: 'string', enum: ['function'] }, function: obj({ name: str, arguments: { type: 'string', description: 'JSON text' } }, ['name', 'arguments']) }, ['id', 'type', 'function']);
const Message = obj(
  {
    role: { type: 'string', enum: ['system', 'developer', 'user', 'assistant', 'tool'] },
    content: { ...Content, nullable: true, description: 'user messages: text other than whitespace, or an image (otherwise a 400 naming the field)' },
    name: { type: 'string', pattern: '^[a-zA-Z0-9_-]{1,64}$', description: 'the participant, as OpenAI takes it: not sent on; not read on tool messages' },
    tool_calls: { type: 'array', items: ToolCall },
    tool_call_id: str,
    reasoning: { type: 'string', description: 'assistant messages: the reasoning text, accepted and not used' },
    reasoning_details: { type: 'array', items: ReasoningDetail, description: 'assistant messages: the reasoning blocks of that turn, as the answer gave them' },
  },
  ['role'],
);

/** Chat's and completions' fields that change nothing here, checked within OpenAI's ranges (openai-sampling-fields.ts). */
const OpenAISampling = {
  presence_penalty: { type: 'number', minimum: -2, maximum: 2, description: 'accepted and ignored' },
  frequency_penalty: { type: 'number', minimum: -2, maximum: 2, description: 'accepted and ignored' },
  seed: { ...int, description: 'accepted and ignored: answers are not made reproducible' },
  logit_bias: { type: 'object', additionalProperties: { type: 'number', minimum: -100, maximum: 100 }, description: 'token ids to biases; accepted and ignored' },
};

/** OpenAI's rule on the three protocols that have it. */
const StreamOptions = (properties: Record<string, unknown>): Schema => obj(properties, [], { nullable: true, description: 'only with `stream: true` (otherwise a 400 naming stream_options)' });

const ChatRequest = obj(
  {
    model: ChatModel,
    messages: { type: 'array', items: Message, minItems: 1 },
    stream: bool,
    stream_options: StreamOptions({ include_usage: bool }),
    max_tokens: { type: 'integer', minimum: 1 },
    max_completion_tokens: { type: 'integer', minimum: 1 },
    temperature: { type: 'number', minimum: 0, maximum: 2 },
    top_p: { type: 'number', minimum: 0, maximum: 1 },
    stop: Stop,
    tools: { type: 'array', items: obj({ type: { type: 'string', enum: ['function'] }, function: obj({ name: str, description: str, parameters: { type: 'object' } }, ['name']) }, ['type', 'function']) },
    tool_choice: {
      oneOf: [{ type: 'string', enum: ['auto', 'none', 'required'] }, obj({ type: str, function: obj({ name: str }, ['name']) })],
      description: 'only next to tools (otherwise a 400 naming tool_choice, as OpenAI answers)',
    },
    parallel_tool_calls: { ...bool, description: 'only next to tools (otherwise a 400 naming parallel_tool_calls, as OpenAI answers)' },
    response_format: obj({ type: { type: 'string', enum: ['text', 'json_object', 'json_schema'] }, json_schema: obj({ name: str, schema: { type: 'object' }, strict: bool }) }, ['type']),
    reasoning_effort: { type: 'string', enum: ['none', 'minimal', 'low', 'medium', 'high', 'xhigh'] },
    user: str,
    ...OpenAISampling,
    n: { type: 'integer', minimum: 1, maximum: 1, description: 'only 1 (one choice is produced; more is a 400 naming n)' },
    logprobs: { ...bool, description: 'accepted and ignored: answers carry no logprobs' },
    top_logprobs: { type: 'integer', minimum: 0, maximum: 20, description: 'only with `logprobs: true` (otherwise a 400 naming top_logprobs); accepted and ignored' },
    metadata: { type: 'object', additionalProperties: str, description: 'accepted (checked as OpenAI checks it) and ignored' },
    service_tier: { type: 'string', enum: ['auto', 'default', 'flex', 'scale', 'priority'], description: 'accepted and ignored' },
    store: { ...bool, description: 'accepted and ignored: chat completions are not stored (use /v1/responses)' },
    verbosity: { type: 'string', enum: ['low', 'medium', 'high'], description: 'accepted and ignored' },
    modalities: { type: 'array', items: { type: 'string', enum: ['text'] }, description: '`["text"]` only: audio output is a 400 naming modalities' },
    audio: { type: 'object', description: 'not supported: any value is a 400 naming audio' },
    functions: { type: 'array', items: { type: 'object' }, description: 'deprecated by OpenAI and not supported: a 400 naming functions (use tools)' },
    function_call: { description: 'deprecated by OpenAI and not supported: a 400 naming function_call (use tool_choice)' },
  },
  ['messages'],
);

const ChatResponse = obj(
  {
    id: str,
    object: { type: 'string', enum: ['chat.completion'] },
    created: int,
    model: Model,
    choices: {
      type: 'array',
      items: obj({
        index: int,
        message: obj({
          role: { type: 'string', enum: ['assistant'] },
          content: { type: 'string', nullable: true },
          reasoning: { type: 'string', description: 'the reasoning text, when the model gave any' },
          reasoning_details: { type: 'array', items: ReasoningDetail, description: 'the reasoning blocks, when the model gave any (stream deltas carry them too)' },
          tool_calls: { type: 'array', items: ToolCall },
        }),
        finish_reason: { type: 'string', enum: ['stop', 'length', 'tool_calls', 'content_filter'] },
      }),
    },
    usage: Usage,
  },
  ['id', 'object', 'created', 'model', 'choices'],
  { description: 'With `stream: true`, a `text/event-stream` of `chat.completion.chunk` objects ending with `data: [DONE]`.' },
);

const CompletionRequest = obj(
  {
    model: ChatModel,
    prompt: { oneOf: [str, { type: 'array', items: str }] },
    stream: bool,
    stream_options: StreamOptions({ include_usage: bool }),
    max_tokens: { type: 'integer', minimum: 1 },
    temperature: { type: 'number', minimum: 0, maximum: 2 },
    top_p: { type: 'number', minimum: 0, maximum: 1 },
    stop: Stop,
    user: str,
    ...OpenAISampling,
    n: { type: 'integer', minimum: 1, maximum: 1, description: 'only 1 (more is a 400 naming n)' },
    best_of: { type: 'integer', minimum: 1, maximum: 1, description: 'only 1 (more is a 400 naming best_of)' },
    logprobs: { type: 'integer', minimum: 0, maximum: 0, description: 'not supported: above 0 is a 400 naming logprobs' },
    echo: { type: 'boolean', enum: [false], description: 'not supported: true is a 400 naming echo' },
    suffix: { type: 'string', maxLength: 0, description: 'not supported: a non-empty suffix is a 400 naming suffix' },
  },
  ['prompt'],
);
const CompletionResponse = obj(
  {
    id: str,
    object: { type: 'string', enum: ['text_completion'] },
    created: int,
    model: Model,
    choices: { type: 'array', items: obj({ index: int, text: str, finish_reason: str }) },
    usage: Usage,
  },
  ['id', 'object', 'created', 'model', 'choices'],
);

const EmbeddingsRequest = obj(
  {
    model: Model,
    input: { oneOf: [str, { type: 'array', items: str, minItems: 1 }] },
    dimensions: { type: 'integer', minimum: 1, description: "at most the model's `dimensions` (GET /v1/available-models; 1536 for svc-embed as shipped), otherwise a 400 naming dimensions" },
    encoding_format: { type: 'string', enum: ['float', 'base64'] },
    user: str,
  },
  ['model', 'input'],
);
const EmbeddingsResponse = obj(
  {
    object: { type: 'string', enum: ['list'] },
    model: Model,
    data: { type: 'array', items: obj({ object: { type: 'string', enum: ['embedding'] }, index: int, embedding: { oneOf: [{ type: 'array', items: num }, { type: 'string', description: 'base64 float32' }] } }) },
    usage: obj({ prompt_tokens: int, total_tokens: int }),
  },
  ['object', 'model', 'data'],
);

const RerankRequest = obj(
  {
    model: Model,
    query: str,
    documents: { type: 'array', items: { oneOf: [str, obj({ text: str }, ['text'])] }, minItems: 1 },
    top_n: { type: 'integer', minimum: 1 },
    return_documents: bool,
  },
  ['model', 'query', 'documents'],
);
const RerankResponse = obj(
  {
    id: str,
    model: Model,
    results: { type: 'array', items: obj({ index: int, relevance_score: num, document: obj({ text: str }) }, ['index', 'relevance_score']) },
    usage: obj({ total_tokens: int }),
  },
  ['results'],
);

const ImagesRequest = obj(
  {
    model: ImageModel,
    prompt: str,
    n: { type: 'integer', minimum: 1, maximum: 10 },
    size: str,
    quality: str,
    style: str,
    background: str,
    output_format: str,
    response_format: { type: 'string', enum: ['b64_json', 'url'] },
    user: str,
    stream: { type: 'boolean', enum: [false], description: 'streamed image generation is not supported: true is a 400' },
  },
  ['prompt'],
);
const ImagesResponse = obj(
  {
    created: int,
    data: { type: 'array', items: obj({ b64_json: str, url: { type: 'string', description: 'a data: URL (the service never reveals an upstream URL)' }, revised_prompt: str }) },
  },
  ['created', 'data'],
);


const Block = obj({ type: str, text: str }, ['type'], { additionalProperties: true, description: 'text, image, tool_use, tool_result, thinking, redacted_thinking or document block' });
const MessagesRequest = obj(
  {
    model: ChatModel,
    max_tokens: { type: 'integer', minimum: 1, description: 'optional here: 4,096 (plus any thinking budget) when left out' },
    messages: {
      type: 'array',
      minItems: 1,
      items: obj({ role: { type: 'string', enum: ['system', 'user', 'assistant'], description: 'system: joins the system prompt' }, content: { oneOf: [str, { type: 'array', items: Block }] } }, ['role', 'content']),
    },
    system: { oneOf: [str, { type: 'array', items: Block }] },
    tools: {
      type: 'array',
      items: {
        oneOf: [
          obj({ name: str, description: str, input_schema: { type: 'object' } }, ['name', 'input_schema'], { additionalProperties: true }),
          obj({ type: { type: 'string', enum: ['function'] }, function: obj({ name: str, description: str, parameters: { type: 'object' } }, ['name']) }, ['type', 'function']),
        ],
      },
      description: "Anthropic's tools or the service's function tool definition",
    },
    tool_choice: {
      oneOf: [
        { type: 'string', enum: ['auto', 'none', 'any', 'required'] },
        obj({ type: { type: 'string', enum: ['auto', 'any', 'tool', 'none'] }, name: str, disable_parallel_tool_use: bool }, ['type']),
      ],
      description: 'without tools only none (otherwise a 400 naming tool_choice, as Anthropic answers)',
    },
    response_format: obj({ type: { type: 'string', enum: ['text', 'json_object', 'json_schema'] }, json_schema: obj({ name: str, schema: { type: 'object' }, strict: bool }) }, ['type'], {
      description: 'structured output in the chat completions form; or output_config.format',
    }),
    stop_sequences: { type: 'array', items: str },
    temperature: num,
    top_p: num,
    top_k: int,
    metadata: obj({ user_id: str }),
    thinking: obj(
      { type: { type: 'string', enum: ['enabled', 'disabled', 'adaptive', 'between_tools'] }, budget_tokens: int, display: { type: 'string', enum: ['summarized', 'omitted'] } },
      ['type'],
      { description: 'budget_tokens only with type enabled (>= 1024, below max_tokens)' },
    ),
    service_tier: { type: 'string', enum: ['auto', 'standard_only'], description: 'accepted and ignored' },
    output_config: { type: 'object', description: 'structured output: {format: {type: json_schema, schema}}' },
    stream: bool,
  },
  ['messages'],
);
const MessagesResponse = obj(
  {
    id: { type: 'string', description: 'msg_...' },
    type: { type: 'string', enum: ['message'] },
    role: { type: 'string', enum: ['assistant'] },
    model: Model,
    content: { type: 'array', items: Block },
    stop_reason: { type: 'string', nullable: true },
    stop_sequence: { type: 'string', nullable: true },
    usage: obj({
      input_tokens: int,
      output_tokens: int,
      cache_read_input_tokens: int,
      cache_creation_input_tokens: int,
      cache_creation: { ...obj({ ephemeral_5m_input_tokens: int, ephemeral_1h_input_tokens: int }), nullable: true, description: 'null in a stream (not known at message_start)' },
      service_tier: { type: 'string', enum: ['standard'] },
    }),
  },
  ['id', 'type', 'role', 'model', 'content', 'usage'],
);
const CountTokensResponse = obj({ input_tokens: int }, ['input_tokens']);
const ResponsesRequest = obj(
  {
    model: ChatModel,
    input: { oneOf: [{ type: 'string', minLength: 1 }, { type: 'array', items: { type: 'object', additionalProperties: true }, minItems: 1 }] },
    instructions: str,
    previous_response_id: str,
    store: bool,
    stream: bool,
    stream_options: StreamOptions({ include_obfuscation: { ...bool, description: 'accepted; deltas carry no obfuscation padding' } }),
    max_output_tokens: { type: 'integer', minimum: 16 },
    temperature: num,
    top_p: num,
    tools: { type: 'array', items: { type: 'object', additionalProperties: true, description: 'function tools and mcp tools' } },
    tool_choice: { oneOf: [str, { type: 'object', additionalProperties: true }], description: 'none, auto, required or a named function or mcp tool; required and named tools only next to tools' },
    parallel_tool_calls: bool,
    text: obj({ format: { type: 'object', additionalProperties: true }, verbosity: { type: 'string', enum: ['low', 'medium', 'high'], description: 'accepted and ignored (not echoed)' } }),
    reasoning: obj({
      effort: { type: 'string', enum: ['none', 'minimal', 'low', 'medium', 'high', 'xhigh'] },
      summary: { type: 'string', enum: ['auto', 'concise', 'detailed'] },
      generate_summary: { type: 'string', enum: ['auto', 'concise', 'detailed'], description: "summary's deprecated name: the same setting, echoed under both names; given with a different summary it is a 400" },
    }),
    include: {
      type: 'array',
      items: str,
      description:
        '`reasoning.encrypted_content`: reasoning items carry `encrypted_content`, a sealed token of the reasoning blocks the upstream needs back ' +
        '(null when there are none); send the item back with it (e.g. with `store: false`) and the next turn keeps its reasoning. ' +
        'An encrypted_content the service did not issue to the account is a 400. The other values OpenAI defines are accepted and ignored; any other value is a 400.',
    },
    metadata: { type: 'object', additionalProperties: str },
    max_tool_calls: { type: 'integer', minimum: 1, description: 'echoed; MCP calls are bounded by the gateway\'s own round limit' },
    prompt_cache_key: { ...str, description: 'echoed; upstream prompt caching is automatic' },
    safety_identifier: { ...str, description: 'echoed; also the response\'s `user` when `user` is absent' },
    service_tier: { type: 'string', enum: ['auto', 'default', 'flex', 'scale', 'priority'], description: 'accepted; the response answers the tier used, always `default`' },
    top_logprobs: { type: 'integer', minimum: 0, maximum: 20, description: 'echoed; output text carries no logprobs' },
  },
  ['input'],
);
const InputTokensResponse = obj({ object: { type: 'string', enum: ['response.input_tokens'] }, input_tokens: int }, ['object', 'input_tokens']);
export const ResponseObject = obj(
  {
    id: { type: 'string', description: 'resp_...' },
    object: { type: 'string', enum: ['response'] },
    created_at: int,
    status: str,
    model: Model,
    output: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: true,
        description: 'message, function_call, reasoning (summary, content; encrypted_content with include reasoning.encrypted_content), mcp_list_tools, mcp_call, mcp_approval_request',
      },
    },
    usage: obj({ input_tokens: int, input_tokens_details: obj({ cached_tokens: int }), output_tokens: int, output_tokens_details: obj({ reasoning_tokens: int }), total_tokens: int }),
    previous_response_id: { type: 'string', nullable: true },
    error: { ...obj({ code: str, message: str }), nullable: true, description: 'set when status is failed' },
    max_tool_calls: { type: 'integer', nullable: true },
    prompt_cache_key: { type: 'string', nullable: true },
    safety_identifier: { type: 'string', nullable: true },
    service_tier: { type: 'string', enum: ['default'] },
    top_logprobs: int,
    background: { type: 'boolean', enum: [false] },
  },
  ['id', 'object', 'status', 'model', 'output'],
);

/** Path below the inference prefix -> its request and 200 schemas. */
export const INFERENCE_BODIES: Readonly<Record<string, { readonly request: Schema; readonly response: Schema; readonly streams?: true }>> = {
  '/chat/completions': { request: ChatRequest, response: ChatResponse, streams: true },
  '/completions': { request: CompletionRequest, response: CompletionResponse, streams: true },
  '/embeddings': { request: EmbeddingsRequest, response: EmbeddingsResponse },
  '/rerank': { request: RerankRequest, response: RerankResponse },
  '/images/generations': { request: ImagesRequest, response: ImagesResponse },
  '/messages': { request: MessagesRequest, response: MessagesResponse, streams: true },
  '/messages/count_tokens': { request: MessagesRequest, response: CountTokensResponse },
  '/responses': { request: ResponsesRequest, response: ResponseObject, streams: true },
  '/responses/input_tokens': { request: ResponsesRequest, response: InputTokensResponse },
};
