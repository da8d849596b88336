import type { FastifyInstance } from 'fastify';
import { HttpError, badRequest, notFound } from '../../shared/errors.ts';
import { checkIncludes } from '../formats/openai-responses/include-values.ts';
import { parseResponsesRequest } from '../formats/openai-responses/parse-responses-request.ts';
import { readRetrieveInclude, withEncryptedReasoning } from '../formats/openai-responses/retrieve-include.ts';
import { principalOf } from '../http/principal.ts';
import type { InferenceContext } from '../inference-context.ts';
import type { InferenceRoutes } from '../inference-plugin.ts';
import { createResponseStore } from '../responses/response-store.ts';
import { inputItemsPage, readInputItemsQuery } from '../responses/input-items-page.ts';
import { deleteResponse, loadInputItems, loadResponse } from '../responses/responses.repository.ts';
import { INFERENCE_ROUTE_SCHEMA } from './route-schema.ts';
import { countResponseInputTokens, serveResponse, type ResponsesDeps, type ServeResponseDeps } from './serve-response.ts';

const UNSUPPORTED = 'listing stored responses is not supported; retrieve or delete one by its id';
/** OpenAI's answer to cancelling a response not created with `background: true` (none is, here). */
const NOT_CANCELLABLE = 'Cannot cancel a synchronous response.';
const NOT_STREAMED = 'stream: a stored response cannot be retrieved as a stream; only background responses stream on retrieval, and background is not supported';

/**
 * `stream` of GET /responses/:id, as the `openai` SDK sends it (`true` or `false`). OpenAI streams
 * only background responses on retrieval; answering JSON to `stream=true` made the SDK read a
 * stream of no events, so `responses.stream({response_id}).finalResponse()` failed obscurely.
 */
function readRetrieveStream(query: unknown): boolean {
  const value = (query as { stream?: unknown } | null)?.stream;
  if (value === undefined || value === 'false') return false;
  if (value === 'true') return true;
  throw badRequest('stream: must be a boolean');
}

/**
 * POST /responses (OpenAI Responses, streamed or not, stored unless `store: false`), POST
 * /responses/input_tokens (the count of what POST /responses would send, as count_tokens on
 * messages); for the owner of a stored response (another account's id is not found, as an unknown
 * one): GET /responses/:id (in_progress while it is streamed), DELETE /responses/:id, GET
 * /responses/:id/input_items, and POST /responses/:id/cancel, OpenAI's 400 for a response not
 * created in the background; 405 for listing responses. The group owns the store that writes
 * responses in group-committed batches: one for both mounts, and closing the app waits for what it
 * has queued (before the database closes).
 */
export function responsesRoutes(deps: ResponsesDeps): InferenceRoutes {
  const serving: ServeResponseDeps = { ...deps, store: createResponseStore(deps.db) };
  return async (app: FastifyInstance, ctx: InferenceContext) => {
    app.addHook('onClose', async () => serving.store.idle());
    app.post(
      '/responses',
      {
        onRequest: ctx.guard('inference'),
        schema: { ...INFERENCE_ROUTE_SCHEMA, summary: 'Create a response (OpenAI Responses: stored conversations, function tools, MCP tools)' },
      },
      async (request, reply) => {
        const sealer = ctx.reasoningSealer(principalOf(request).accountId);
        return serveResponse(ctx, serving, request, reply, parseResponsesRequest(request.body, sealer), sealer);
      },
    );
    app.post(
      '/responses/input_tokens',
      {
        onRequest: ctx.guard('inference'),
        schema: { ...INFERENCE_ROUTE_SCHEMA, summary: 'Count the input tokens of a responses request (an estimate with the o200k tokenizer)' },
      },
      async (request) => {
        const sealer = ctx.reasoningSealer(principalOf(request).accountId);
        const inputTokens = await countResponseInputTokens(ctx, serving, request, parseResponsesRequest(request.body, sealer), sealer);
        return { object: 'response.input_tokens', input_tokens: inputTokens };
      },
    );
    app.get<{ Params: { id: string } }>(
      '/responses/:id',
      { onRequest: ctx.guard('inference'), schema: { ...INFERENCE_ROUTE_SCHEMA, summary: 'A stored response, for the account that created it' } },
      async (request) => {
        const stream = readRetrieveStream(request.query);
        const include = checkIncludes(readRetrieveInclude(request.query));
        const r = await loadResponse(deps.db, principalOf(request).accountId, request.params.id, new Date(ctx.clock.now()));
        if (!r) throw notFound('response not found');
        if (stream) throw badRequest(NOT_STREAMED);
        // Other include values change nothing here, as on create.
        return include.includes('reasoning.encrypted_content') ? withEncryptedReasoning(r.body, r.outputItems) : r.body;
      },
    );
    app.delete<{ Params: { id: string } }>(
      '/responses/:id',
      { onRequest: ctx.guard('inference'), schema: { ...INFERENCE_ROUTE_SCHEMA, summary: 'Delete a stored response (a response continuing it can no longer be continued)' } },
      async (request) => {
        const { id } = request.params;
        if (!(await deleteResponse(deps.db, principalOf(request).accountId, id, new Date(ctx.clock.now())))) throw notFound('response not found');
        return { id, object: 'response.deleted', deleted: true };
      },
    );
    app.get<{ Params: { id: string } }>(
      '/responses/:id/input_items',
      {
        onRequest: ctx.guard('inference'),
        schema: { ...INFERENCE_ROUTE_SCHEMA, summary: 'The items a stored response was given (its conversation), by `order`, `limit` and `after`' },
      },
      async (request) => {
        const query = readInputItemsQuery(request.query, checkIncludes(readRetrieveInclude(request.query)));
        const items = await loadInputItems(deps.db, principalOf(request).accountId, request.params.id, new Date(ctx.clock.now()));
        if (!items) throw notFound('response not found');
        return inputItemsPage(items, query);
      },
    );
    const hidden = { onRequest: ctx.guard('inference'), schema: { hide: true } };
    // Only background responses can be cancelled, and background is not supported: never a success.
    app.post<{ Params: { id: string } }>('/responses/:id/cancel', hidden, async (request) => {
      const r = await loadResponse(deps.db, principalOf(request).accountId, request.params.id, new Date(ctx.clock.now()));
      if (!r) throw notFound('response not found');
      throw badRequest(NOT_CANCELLABLE);
    });
    app.get('/responses', hidden, async () => {
      throw new HttpError(405, UNSUPPORTED);
    });
  };
}
