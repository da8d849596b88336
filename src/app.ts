import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import cookie from '@fastify/cookie';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { randomUUID } from 'node:crypto';
import { Gauge } from 'prom-client';
import { accountsAdminRoutes } from './accounts/admin/accounts-admin.routes.ts';
import { createAccountsService } from './accounts/accounts.service.ts';
import { adminPlugin } from './admin/admin-plugin.ts';
import { createDashboardService } from './dashboard/dashboard.service.ts';
import { creditsRoutes } from './inference/routes/credits.routes.ts';
import { dashboardApiRoutes } from './dashboard/routes/dashboard-api.routes.ts';
import { dashboardPagesRoutes } from './dashboard/routes/dashboard-pages.routes.ts';
import { readSession } from './dashboard/routes/session-cookies.ts';
import { createStripeTopUp } from './dashboard/stripe-topup.ts';
import type { AppDeps } from './deps.ts';
import { clientErrorHandler, frameworkErrorHandler, installErrorHandling } from './http/error-handler.ts';
import { refuseUnreadableBodies } from './http/body-encoding.ts';
import { installJsonBodyParser } from './http/json-body.ts';
import { marketPathWithoutTrailingSlash, surfaceOf } from './http/surface.ts';
import { closeConnectionsOnShutdown } from './http/close-connections.ts';
import { RequestLog } from './http/request-log.ts';
import { installMetrics } from './http/metrics.ts';
import { optionalDefaultedQueries } from './http/openapi.ts';
import { appValidators } from './http/validators.ts';
import { completeOpenApi, SECURITY_SCHEMES } from './http/openapi/complete-openapi.ts';
import { catalogRoutes } from './inference/routes/catalog.routes.ts';
import { createInferenceContext } from './inference/inference-context.ts';
import { inferencePlugin } from './inference/inference-plugin.ts';
import { chatCompletionsRoutes } from './inference/routes/chat-completions.routes.ts';
import { completionsRoutes } from './inference/routes/completions.routes.ts';
import { embeddingsRoutes } from './inference/routes/embeddings.routes.ts';
import { imagesRoutes } from './inference/routes/images.routes.ts';
import { messagesRoutes } from './inference/routes/messages.routes.ts';
import { rerankRoutes } from './inference/routes/rerank.routes.ts';
import { responsesRoutes } from './inference/routes/responses.routes.ts';
import { createMcpClient } from './inference/mcp/mcp-client.ts';
import { startResponsePruning } from './inference/responses/prune-responses.job.ts';
import { upstreamsAdminRoutes } from './inference/routes/upstreams-admin.routes.ts';
import { installUpstreamMetrics } from './inference/upstream/upstream-metrics.ts';
import { demoAdminRoutes } from './market/admin/demo-admin.routes.ts';
import { secretsAdminRoutes } from './market/admin/secrets-admin.routes.ts';
import { marketAdminRoutes } from './market/admin/market-admin.routes.ts';
import { withdrawalsAdminRoutes } from './market/admin/withdrawals-admin.routes.ts';
import { countMarketRequest, marketPlugin } from './market/market-plugin.ts';
import { createWithdrawalService } from './market/withdrawals/withdrawal.service.ts';
import { opsRoutes } from './ops/ops.routes.ts';
import { createReadiness } from './ops/readiness.ts';
import { createScheduler } from './ops/scheduler.ts';
import { pruneIdempotencyKeys } from './market/auth/idempotency.ts';
import { pruneUsedSignatures } from './market/auth/replay-cache.postgres.ts';
import { ping } from './storage/database.ts';

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export interface BuildAppOptions {
  /** Process-wide metrics (event loop, memory); off in tests that build many apps. */
  readonly defaultMetrics?: boolean;
}

/** The one composition root: every surface is registered here, explicitly. */
export async function buildApp(deps: AppDeps, opts: BuildAppOptions = {}): Promise<FastifyInstance> {
  const { config } = deps;
  const app = Fastify({
    loggerInstance: deps.logger as FastifyBaseLogger,
    // Trust the operator's proxies by hop count, never every hop: `true` takes the leftmost
    // X-Forwarded-For entry, which the client writes, so each forged entry was a new address with
    // a fresh rate limit. (Fastify reads a plain number as trusting nothing, hence the function.)
    trustProxy: config.trustProxyHops > 0 ? (_address: string, hop: number) => hop < config.trustProxyHops : false,
    bodyLimit: config.bodyLimitBytes,
    // Receiving a request has a bound; a long streamed answer is bounded by socket inactivity.
    requestTimeout: 60_000,
    connectionTimeout: config.requestTimeoutMs,
    keepAliveTimeout: 72_000,
    return503OnClosing: true,
    // One flat line per request (src/http/request-log.ts).
    logController: new RequestLog(),
    requestIdHeader: false,
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    },
    frameworkErrors: frameworkErrorHandler,
    clientErrorHandler,
    // A trailing slash on a market path is ignored; /v1, /admin and the rest keep exact paths.
    rewriteUrl: (req) => marketPathWithoutTrailingSlash(req.url ?? '/'),
    ajv: { customOptions: { removeAdditional: false, coerceTypes: 'array', useDefaults: true, allErrors: false } },
    // Bodies are not coerced, and every part is held to what storage accepts (validators.ts).
    schemaController: { compilersFactory: { buildValidator: appValidators() as never } },
  });

  app.addHook('onRequest', (request, reply, done) => {
    void reply.header('x-request-id', request.id);
    done();
  });
  closeConnectionsOnShutdown(app, config.shutdownGraceMs);
  installErrorHandling(app);
  // A market path that starts with `//` is the market's unknown route (surface.ts) but outside the
  // /api prefix, whose hooks count every request: it counts here, like one inside it.
  const countMarket = countMarketRequest(deps.limiters.market);
  app.addHook('onRequest', (request, reply, done) => {
    // The url's second character first: this hook runs before every request of every surface.
    if (request.url.charCodeAt(1) !== 47 || !request.is404 || surfaceOf(request.url) !== 'market') return done();
    countMarket(request, reply).then(() => done(), done);
  });
  refuseUnreadableBodies(app);
  installJsonBodyParser(app);
  const metrics = installMetrics(app, { defaultMetrics: opts.defaultMetrics ?? false });
  const stopUpstreamMetrics = installUpstreamMetrics(metrics.registry, deps.upstreams.health);
  app.addHook('onClose', async () => stopUpstreamMetrics());
  new Gauge({
    name: 'inference_credit_waiting',
    help: "Inference requests waiting for the holds of their account's requests in flight to give credits back",
    registers: [metrics.registry],
    collect() {
      this.set(deps.billing.waiting());
    },
  });

  await app.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      info: { title: 'svc', version: '0.1.0', description: 'Inference gateway and prediction market' },
      components: { securitySchemes: SECURITY_SCHEMES },
    },
    // Optional defaulted queries, then surface-wide security, error answers and the model endpoints' bodies (docs/api-decisions.md).
    transformObject: (documents) => completeOpenApi(optionalDefaultedQueries(documents)),
  });
  await app.register(swaggerUi, { routePrefix: '/docs' });
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());

  const ready = createReadiness({ pingDatabase: () => ping(deps.db), redis: deps.redis, catalog: config.catalog, logger: deps.logger });
  await app.register(opsRoutes, { ready, registry: metrics.registry });
  const accounts = createAccountsService(deps.db, deps.apiKeys);
  const { db, clock, chain } = deps;
  const withdrawals = createWithdrawalService({
    db, dbKind: deps.dbKind, chain, clock, logger: deps.logger, checkIntervalMs: config.custody.withdrawalCheckIntervalMs,
  });
  // Upkeep jobs run while the app does; other parts register theirs on `upkeep`.
  const upkeep = createScheduler(deps.logger);
  upkeep.register({
    name: 'market.prune-idempotency-keys',
    everyMs: 10 * 60_000,
    run: () => pruneIdempotencyKeys(db, new Date(clock.now() - config.idempotencyTtlMs)),
  });
  upkeep.register({ name: 'market.prune-used-signatures', everyMs: 60_000, run: () => pruneUsedSignatures(db, new Date(clock.now())) });
  app.addHook('onReady', async () => upkeep.start());
  app.addHook('onClose', async () => upkeep.stop());
  // The reconciler of sent withdrawals runs while the app does.
  app.addHook('onReady', async () => withdrawals.start());
  app.addHook('onClose', async () => withdrawals.stop());
  const dashboard = createDashboardService({ db, clock, mailer: deps.mailer, accounts, logger: deps.logger, publicUrl: config.dashboard.publicUrl });
  // Cookies are the dashboard's (and the operator's session on /admin): their parsing and
  // set-cookie hooks stay off the inference and market routes, which run them per request.
  await app.register(async (scope) => {
    await scope.register(cookie);
    await scope.register(adminPlugin, {
      prefix: '/admin',
      token: deps.adminToken,
      operatorSession: async (request) => {
        const s = await readSession(request, dashboard);
        return s?.operator ? s : null;
      },
      routes: [
        accountsAdminRoutes({ db: deps.db, accounts, chargesWritten: () => deps.billing.written() }),
        marketAdminRoutes({ db: deps.db, clock: deps.clock, secretsKey: deps.secretsKey, feed: deps.marketFeed }),
        withdrawalsAdminRoutes({ db, withdrawals }),
        upstreamsAdminRoutes({ catalog: config.catalog, health: deps.upstreams.health }),
        demoAdminRoutes({ db }),
        secretsAdminRoutes({ db, keys: { current: deps.secretsKey, previous: deps.previousSecretsKeys }, recordCurrentKey: () => deps.recordSecretsKey() }),
      ],
    });
    await scope.register(dashboardApiRoutes, {
      prefix: '/dashboard/api',
      db,
      service: dashboard,
      accounts,
      adminToken: deps.adminToken,
      authLimiter: deps.limiters.auth,
      stripe: config.dashboard.stripe ? createStripeTopUp(db, config.dashboard.stripe) : null,
      mailOutbox: deps.mailer.outbox,
      chargesWritten: () => deps.billing.written(),
      balance: (accountId, read) => deps.billing.balance(accountId, read),
      lastUsedWritten: () => deps.apiKeys.flushLastUsed(),
    });
    await scope.register(dashboardPagesRoutes);
  });
  const inference = createInferenceContext({
    catalog: config.catalog, billing: deps.billing, clock, apiKeys: deps.apiKeys, limiters: deps.limiters, upstreams: deps.upstreams,
    secretsKey: deps.secretsKey,
    previousSecretsKeys: deps.previousSecretsKeys,
  });
  const responses = responsesRoutes({ db, config: config.responses, mcp: createMcpClient(config.responses.mcp) });
  let stopPruning = (): void => {};
  app.addHook('onReady', async () => {
    stopPruning = startResponsePruning({ db, clock, logger: deps.logger, everyMs: config.responses.pruneIntervalMs });
  });
  app.addHook('onClose', async () => stopPruning());
  const messages = messagesRoutes({ db, threadRetentionMs: config.responses.retentionMs });
  const inferenceRoutes = [catalogRoutes, creditsRoutes({ db }), chatCompletionsRoutes, completionsRoutes, embeddingsRoutes, rerankRoutes, imagesRoutes, responses, messages];
  await app.register(inferencePlugin, { prefix: '/v1', context: inference, routes: inferenceRoutes });
  // The messages SDKs take `{base_url}/inference` as their base and append /v1/messages.
  await app.register(inferencePlugin, { prefix: '/inference/v1', context: inference, routes: inferenceRoutes });
  await app.register(marketPlugin, {
    prefix: '/api',
    limiter: deps.limiters.market,
    clock,
    db,
    marketKeys: deps.marketKeys,
    secretsKey: deps.secretsKey,
    feed: deps.marketFeed,
    stream: deps.marketStream,
    auth: { db, redis: deps.redis, keys: deps.marketKeys, redisPrefix: config.redisPrefix },
    custody: { db, chain, withdrawals, minWithdrawalUnits: config.custody.minWithdrawalUnits },
  });

  return app;
}
