import { Type } from 'typebox';
import type { FastifyInstance } from 'fastify';
import { notFound } from '../../shared/errors.ts';
import { anthropicRequestId } from '../http/anthropic-request-id.ts';
import type { InferenceContext } from '../inference-context.ts';
import { describeModels, listChatModels } from '../catalog/catalog.view.ts';

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);

// OpenAI's model object and Anthropic's in one (catalog.view.ts).
const ModelItem = Type.Object({
  id: Type.String(),
  object: Type.Literal('model'),
  created: Type.Integer(),
  owned_by: Type.String(),
  type: Type.Literal('model'),
  display_name: Type.String(),
  created_at: Type.String({ format: 'date-time' }),
});
const ModelList = Type.Object({
  object: Type.Literal('list'),
  data: Type.Array(ModelItem),
  has_more: Type.Boolean(),
  first_id: Nullable(Type.String()),
  last_id: Nullable(Type.String()),
});

const AvailableModels = Type.Object({
  object: Type.Literal('list'),
  data: Type.Array(
    Type.Object({
      id: Type.String(),
      object: Type.Literal('model'),
      type: Type.String(),
      description: Type.String(),
      context_length: Nullable(Type.Integer()),
      max_output_tokens: Nullable(Type.Integer()),
      context: Nullable(Type.Integer()),
      max_output: Nullable(Type.Integer()),
      dimensions: Nullable(Type.Integer({ description: 'embedding models: the length of their vectors, the most `dimensions` of /v1/embeddings may ask' })),
      endpoints: Type.Array(Type.String()),
      capabilities: Type.Object({
        vision: Type.Boolean(),
        tools: Type.Boolean(),
        json_output: Type.Boolean(),
        streaming: Type.Boolean(),
        reasoning: Type.Boolean(),
      }),
      pricing: Type.Object({
        input: Nullable(Type.Number()),
        cached_input: Nullable(Type.Number()),
        output: Nullable(Type.Number()),
        per_image: Nullable(Type.Number()),
      }),
      priced_as: Nullable(Type.Array(Type.String())),
      available: Type.Boolean(),
    }),
  ),
});

/**
 * The two catalog routes. Like every inference endpoint they need a key of a verified account
 * (OpenAI's /v1/models needs one too); they do not spend the rate budget but show it.
 */
export async function catalogRoutes(app: FastifyInstance, ctx: InferenceContext): Promise<void> {
  // Under the messages-style base an Anthropic client sends its key as x-api-key, on the catalog as
  // on /v1/messages (docs/decisions-accounts.md).
  // Anthropic's request-id header there too, as on the messages routes.
  const allowXApiKey = app.prefix.startsWith('/inference');
  const checks = [ctx.authenticate({ allowXApiKey }), ctx.showRate('inference')];
  const onRequest = allowXApiKey ? [anthropicRequestId, ...checks] : checks;
  const tags = ['inference'];
  const security = [{ bearer: [] }];
  // The catalog is fixed for the life of the process; availability too (it follows configuration).
  const models = listChatModels(ctx.catalog);
  const available = describeModels(ctx.catalog);

  app.get(
    '/models',
    { onRequest, schema: { tags, security, summary: 'Chat models (OpenAI list shape, brand ids)', response: { 200: ModelList } } },
    async () => models,
  );
  app.get<{ Params: { model: string } }>(
    '/models/:model',
    {
      onRequest,
      schema: {
        tags,
        security,
        summary: 'One chat model (OpenAI retrieve shape)',
        params: Type.Object({ model: Type.String() }),
        response: { 200: ModelItem },
      },
    },
    async (request) => {
      const m = models.data.find((x) => x.id === request.params.model);
      if (!m) throw notFound(`model not found: ${request.params.model}`);
      return m;
    },
  );
  app.get(
    '/available-models',
    {
      onRequest,
      schema: {
        tags,
        security,
        summary: 'Every model with type, limits, endpoints, capabilities, pricing (credits per 1K tokens) and availability',
        response: { 200: AvailableModels },
      },
    },
    async () => available,
  );
}
