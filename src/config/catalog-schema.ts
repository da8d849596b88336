import { Type, type Static } from 'typebox';

const strict = { additionalProperties: false } as const;

export const ProviderType = Type.Union([
  Type.Literal('openai'),
  Type.Literal('anthropic'),
  Type.Literal('rerank'),
  Type.Literal('images'),
]);

const Provider = Type.Object(
  {
    id: Type.String({ minLength: 1 }),
    type: ProviderType,
    base_url: Type.String(),
    api_key: Type.Optional(Type.String()),
    timeout_ms: Type.Optional(Type.Integer({ minimum: 1 })),
    connect_timeout_ms: Type.Optional(Type.Integer({ minimum: 1 })),
    first_byte_timeout_ms: Type.Optional(Type.Integer({ minimum: 1 })),
    idle_timeout_ms: Type.Optional(Type.Integer({ minimum: 1 })),
    connections: Type.Optional(Type.Integer({ minimum: 1 })),
  },
  strict,
);

const Price = Type.Union([Type.Number({ minimum: 0 }), Type.String()]);

const Model = Type.Object(
  {
    id: Type.String({ pattern: '^svc-[a-z0-9-]+$' }),
    type: Type.Union([Type.Literal('chat'), Type.Literal('embedding'), Type.Literal('rerank'), Type.Literal('image')]),
    description: Type.Optional(Type.String()),
    context: Type.Optional(Type.Integer({ minimum: 1 })),
    max_output: Type.Optional(Type.Integer({ minimum: 1 })),
    /** Embedding models: the length of their vectors, the most a request's `dimensions` may ask. */
    dimensions: Type.Optional(Type.Integer({ minimum: 1 })),
    pricing: Type.Optional(
      Type.Object(
        {
          input: Type.Optional(Price),
          cached_input: Type.Optional(Price),
          output: Type.Optional(Price),
          per_image: Type.Optional(Price),
        },
        strict,
      ),
    ),
    endpoints: Type.Optional(Type.Array(Type.String())),
    capabilities: Type.Optional(
      Type.Object(
        {
          vision: Type.Optional(Type.Boolean()),
          tools: Type.Optional(Type.Boolean()),
          json_output: Type.Optional(Type.Boolean()),
          streaming: Type.Optional(Type.Boolean()),
          reasoning: Type.Optional(Type.Boolean()),
        },
        strict,
      ),
    ),
    deployments: Type.Optional(
      Type.Array(
        Type.Object(
          {
            provider: Type.String(),
            model: Type.String(),
            weight: Type.Optional(Type.Integer({ minimum: 1 })),
            priority: Type.Optional(Type.Integer({ minimum: 0 })),
            /** Whether this upstream model takes reasoning parameters; defaults to the model's capability. */
            reasoning: Type.Optional(Type.Boolean()),
          },
          strict,
        ),
      ),
    ),
    pipeline: Type.Optional(
      Type.Record(Type.String(), Type.Union([Type.String(), Type.Array(Type.String(), { minItems: 1 })])),
    ),
  },
  strict,
);

const AutoRule = Type.Object(
  {
    lanes: Type.Optional(Type.Array(Type.String())),
    images: Type.Optional(Type.Boolean()),
    tools: Type.Optional(Type.Boolean()),
    structured_output: Type.Optional(Type.Boolean()),
    reasoning: Type.Optional(Type.Boolean()),
    min_input_tokens: Type.Optional(Type.Integer({ minimum: 0 })),
    min_output_tokens: Type.Optional(Type.Integer({ minimum: 0 })),
    use: Type.Array(Type.String(), { minItems: 1 }),
  },
  strict,
);

const Router = Type.Object(
  {
    candidates: Type.Array(Type.String(), { minItems: 1 }),
    rules: Type.Optional(Type.Array(AutoRule)),
  },
  strict,
);

const Resilience = Type.Object(
  {
    max_retries: Type.Optional(Type.Integer({ minimum: 0, maximum: 10 })),
    backoff_base_ms: Type.Optional(Type.Integer({ minimum: 0 })),
    backoff_max_ms: Type.Optional(Type.Integer({ minimum: 0 })),
    retry_after_cap_ms: Type.Optional(Type.Integer({ minimum: 0 })),
    max_attempts: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
    max_total_ms: Type.Optional(Type.Integer({ minimum: 1 })),
    breaker: Type.Optional(
      Type.Object(
        {
          consecutive_failures: Type.Optional(Type.Integer({ minimum: 1 })),
          failure_ratio: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 1 })),
          min_requests: Type.Optional(Type.Integer({ minimum: 1 })),
          window_ms: Type.Optional(Type.Integer({ minimum: 1 })),
          cooldown_ms: Type.Optional(Type.Integer({ minimum: 1 })),
          sync_interval_ms: Type.Optional(Type.Integer({ minimum: 10 })),
        },
        strict,
      ),
    ),
  },
  strict,
);

export const CatalogFile = Type.Object(
  {
    providers: Type.Optional(Type.Array(Provider)),
    models: Type.Array(Model, { minItems: 1 }),
    auto: Type.Optional(Router),
    /** The brand model serving chat requests that name no model. */
    default_model: Type.Optional(Type.String()),
    resilience: Type.Optional(Resilience),
  },
  strict,
);

export type CatalogFile = Static<typeof CatalogFile>;
export type ModelEntry = Static<typeof Model>;
export type ProviderEntry = Static<typeof Provider>;
