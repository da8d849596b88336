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
      Type.Array(Type.Object({ provider: Type.String(), model: Type.String() }, strict)),
    ),
    pipeline: Type.Optional(Type.Record(Type.String(), Type.String())),
  },
  strict,
);

const Router = Type.Object(
  {
    candidates: Type.Array(Type.String()),
    default: Type.String(),
  },
  strict,
);

export const CatalogFile = Type.Object(
  {
    providers: Type.Optional(Type.Array(Provider)),
    models: Type.Array(Model, { minItems: 1 }),
    auto: Type.Optional(Router),
  },
  strict,
);

export type CatalogFile = Static<typeof CatalogFile>;
export type ModelEntry = Static<typeof Model>;
export type ProviderEntry = Static<typeof Provider>;
