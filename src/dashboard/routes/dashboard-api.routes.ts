import '@fastify/cookie';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { getAccountOrThrow, listLedger } from '../../accounts/account.repository.ts';
import { listAccountKeys } from '../../accounts/api-key.repository.ts';
import type { AccountsService } from '../../accounts/accounts.service.ts';
import { refuseNonDecimalIntegersLowerCase } from '../../http/decimal-integers.ts';
import { creditsNumber } from '../../accounts/credits.amount.ts';
import { KEY_NAME_MAX } from '../../accounts/key-name.ts';
import type { RateLimiter } from '../../ratelimit/limiter.ts';
import { badRequest, forbidden, HttpError, notFound, unauthorized } from '../../shared/errors.ts';
import { secureEqual } from '../../shared/secure-compare.ts';
import type { Db } from '../../storage/database.ts';
import type { DashboardService, DashboardSession } from '../dashboard.service.ts';
import type { StripeTopUp } from '../stripe-topup.ts';
import { dailyUsage, usageRows, type UsageRange } from '../usage.queries.ts';
import { csvLine } from './csv.ts';
import { clearSessionCookie, CSRF_COOKIE, readSession, SESSION_COOKIE, setCsrfCookie, setSessionCookie } from './session-cookies.ts';

export interface DashboardApiOptions {
  readonly db: Db;
  readonly service: DashboardService;
  readonly accounts: AccountsService;
  readonly adminToken: string;
  readonly authLimiter: RateLimiter;
  readonly stripe: StripeTopUp | null;
  /** Where emails are written when the service has no SMTP server (Mailer.outbox). */
  readonly mailOutbox: string | null;
  /** Resolves once the charges this instance queued are written (Billing.written). */
  readonly chargesWritten: () => Promise<void>;
  /**
   * The account's row read by `read`, and the micro-credits it may spend now (Billing.balance):
   * the part of this instance's lease that nothing holds is the account's own next requests', so
   * not spoken for (docs/dashboard.md).
   */
  readonly balance: <T extends { readonly credits: bigint; readonly reserved: bigint }>(accountId: number, read: () => Promise<T>) => Promise<{ account: T; available: bigint }>;
  /** Writes the `last_used_at` times this instance noted and has not written yet (ApiKeyService.flushLastUsed). */
  readonly lastUsedWritten: () => Promise<void>;
}

const strict = { additionalProperties: false } as const;
// Bounds only, far above the rules: an empty field or an address or password too long is
// answered by `filled` and the service in words naming the field, not Ajv's (`invalid email: must
// NOT have fewer than 3 characters`) under a form's field (docs/api-decisions.md, "Dashboard:
// session 29 audit").
const Email = Type.String({ maxLength: 1000 });
const Password = Type.String({ maxLength: 1000 });
// The token's form is the service's check: a link cut short or with a full stop after it is an
// invalid link to its reader, answered in docs/dashboard.md's words, not a schema's pattern.
const Token = Type.String({ maxLength: 2000, description: 'the token from the emailed link' });
// The form is checked by rangeOf, not by a schema pattern: Ajv would answer `must match pattern
// "^\\d{4}-..."`, words no user reads (docs/api-decisions.md, "Market API: thirteenth audit").
const Day = Type.String({ maxLength: 100, description: 'YYYY-MM-DD (UTC)' });
// A key name's rules (not blank, at most KEY_NAME_MAX characters trimmed, no control characters)
// are checked by the accounts service, in words naming `name`, the same for the admin API; a
// schema maxLength would count the untrimmed text and answer in Ajv's words.
const KeyName = Type.String({ description: `not blank; at most ${KEY_NAME_MAX} characters; no control characters` });
const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** A form's field left empty: what to enter, under that field. */
function filled(field: string, value: string, what: string): void {
  if (value.trim() === '') throw badRequest(`${field}: enter ${what}`);
}
const Ok = Type.Object({ ok: Type.Boolean() });
const SESSION_ENDED = 'your session has ended - sign in again';
const ErrorBody = Type.Object({ error: Type.String() });
const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 429: ErrorBody };

const AccountSummary = Type.Object({
  id: Type.Integer(),
  email: Type.String(),
  email_verified: Type.Boolean(),
  credits: Type.Number(),
  available: Type.Number(),
  credits_micro: Type.String(),
  operator: Type.Boolean(),
});

const MAX_RANGE_DAYS = 366;
/** Live svk_ keys an account may hold through the dashboard. */
export const MAX_LIVE_KEYS_PER_ACCOUNT = 50;
const MAIL_NOT_SENT_ON_SIGN_UP = 'your account was created, but the verification email could not be sent; use "Resend the link" on your account page to try again';
const DAY_MS = 86_400_000;

function rangeOf(query: { from?: string; to?: string }, now: number): UsageRange {
  const parse = (s: string, field: string) => {
    const d = new Date(`${s}T00:00:00Z`);
    // A malformed day and one the calendar lacks (2026-02-30) get the same words.
    if (!DAY.test(s) || Number.isNaN(d.getTime()) || d.toISOString().slice(0, 10) !== s) throw badRequest(`${field}: not a date; expected YYYY-MM-DD (UTC)`);
    return d;
  };
  // An empty `from=` is a malformed day, not a missing one.
  const to = query.to !== undefined ? new Date(parse(query.to, 'to').getTime() + DAY_MS) : new Date(Math.floor(now / DAY_MS) * DAY_MS + DAY_MS);
  const from = query.from !== undefined ? parse(query.from, 'from') : new Date(to.getTime() - 30 * DAY_MS);
  if (from >= to) throw badRequest('from: must not be after to');
  if (to.getTime() - from.getTime() > MAX_RANGE_DAYS * DAY_MS) throw badRequest(`to: a range is at most ${MAX_RANGE_DAYS} days`);
  return { from, to };
}

/** Most credit ledger rows on one page (and the default: the page shows the latest 100). */
const MAX_LEDGER_PAGE = 100;
const WHOLE = /^[1-9][0-9]{0,14}$/;

/** The credits page's `limit` and `before`, checked here so the words name the field. */
function ledgerPageOf(query: { limit?: string; before?: string }): { limit: number; before?: bigint } {
  const limit = query.limit === undefined ? MAX_LEDGER_PAGE : WHOLE.test(query.limit) ? Number(query.limit) : 0;
  if (limit < 1 || limit > MAX_LEDGER_PAGE) throw badRequest(`limit: must be a whole number from 1 to ${MAX_LEDGER_PAGE}`);
  if (query.before === undefined) return { limit };
  if (!WHOLE.test(query.before)) throw badRequest('before: must be a ledger row id (a whole number from 1)');
  return { limit, before: BigInt(query.before) };
}

/**
 * The JSON API behind the dashboard pages, under /dashboard/api. A session is a server-side row
 * named by an httpOnly cookie; every state-changing request carries `x-csrf-token`: the
 * session's token once signed in, before that the `svc_csrf` cookie's value (double submit).
 */
export async function dashboardApiRoutes(base: FastifyInstance, opts: DashboardApiOptions): Promise<void> {
  const app = base.withTypeProvider<TypeBoxTypeProvider>();
  const { db, service, accounts } = opts;
  const tags = ['dashboard'];

  app.decorateRequest('dashboardSession', null);
  // A key's id is its decimal digits: `0x1` or `1e0` is not key 1 (as on the operator API).
  app.addHook('preValidation', refuseNonDecimalIntegersLowerCase);
  // Charges are written behind the answers: a read here first writes this instance's queue,
  // so a balance or usage read shows every call answered before it.
  app.addHook('preHandler', async (request) => {
    if (request.method === 'GET') await opts.chargesWritten();
  });

  // Every answer here is one account's: the session's CSRF token, a new key's whole secret, usage
  // and the ledger. No cache (a shared proxy, the browser's disk on a shared computer) keeps one.
  app.addHook('onSend', async (_request, reply) => {
    void reply.header('cache-control', 'no-store');
  });

  app.addHook('onRequest', async (request) => {
    const session = await readSession(request, service);
    (request as SessionRequest).dashboardSession = session;
    if (request.method === 'GET' || request.method === 'HEAD' || request.url.startsWith('/dashboard/api/stripe/webhook')) return;
    const sent = request.headers['x-csrf-token'];
    const expected = session ? session.csrfToken : request.cookies[CSRF_COOKIE];
    if (typeof sent !== 'string' || !expected || !secureEqual(sent, expected)) {
      // A page still holding the token of a session that ended (signed out in another tab,
      // expired, ended by a password reset) is told to sign in again, not to mend a token:
      // refused either way, nothing changes, so the CSRF defence loses nothing.
      if (!session && request.cookies[SESSION_COOKIE]) throw unauthorized(SESSION_ENDED);
      throw forbidden('missing or wrong CSRF token; reload the page');
    }
  });

  const limit = async (request: FastifyRequest, reply: FastifyReply, ...keys: string[]) => {
    for (const key of keys) {
      const d = await opts.authLimiter.consume(key);
      if (!d.allowed) {
        const minutes = Math.max(1, Math.ceil(d.resetMs / 60_000));
        void reply.header('retry-after', String(Math.ceil(d.resetMs / 1000)));
        throw new HttpError(429, `too many attempts - try again in ${minutes} minute${minutes === 1 ? '' : 's'}`);
      }
    }
    void request;
  };

  const requireAccount = (request: FastifyRequest): DashboardSession & { accountId: number } => {
    const s = (request as SessionRequest).dashboardSession;
    if (!s || s.accountId === null) throw unauthorized('sign in first');
    return s as DashboardSession & { accountId: number };
  };

  const summary = async (accountId: number) => {
    const { account: a, available } = await opts.balance(accountId, () => getAccountOrThrow(db, accountId));
    return {
      id: a.id,
      email: a.email,
      email_verified: a.email_verified,
      credits: creditsNumber(a.credits),
      available: creditsNumber(available),
      credits_micro: a.credits.toString(),
      operator: a.is_operator,
    };
  };

  app.get(
    '/session',
    {
      schema: {
        tags,
        summary: 'Who is signed in, the CSRF token to send, whether top-up is offered, and where emails go',
        response: {
          200: Type.Object({
            signed_in: Type.Boolean(),
            operator: Type.Boolean(),
            account: Type.Union([AccountSummary, Type.Null()]),
            csrf_token: Type.String(),
            topup_enabled: Type.Boolean(),
            sends_email: Type.Boolean({ description: 'false: the service has no mail server (SMTP_URL unset) and writes its emails to DATA_DIR/outbox/, their links logged' }),
            mail_outbox: Type.Union([Type.String(), Type.Null()], {
              description: 'That folder as configured, to a signed-in account (its verification link is there); null otherwise, and when emails are sent.',
            }),
          }),
        },
      },
    },
    async (request, reply) => {
      const s = (request as SessionRequest).dashboardSession;
      const csrf = s ? s.csrfToken : setCsrfCookie(request, reply);
      return {
        signed_in: s !== null,
        operator: s?.operator ?? false,
        account: s && s.accountId !== null ? await summary(s.accountId) : null,
        csrf_token: csrf,
        topup_enabled: opts.stripe !== null,
        sends_email: opts.mailOutbox === null,
        // A folder of the server's, so only to an account, whose link is in it.
        mail_outbox: s && s.accountId !== null ? opts.mailOutbox : null,
      };
    },
  );

  app.post(
    '/sign-up',
    {
      schema: {
        tags,
        summary: 'Create an account; a verification link is emailed',
        description:
          'The account is created and signed in even when the verification email cannot be sent: `verification_email_sent` is then false, `message` says so, and `POST /dashboard/api/verify-email/resend` sends the link once mail works again.',
        body: Type.Object({ email: Email, password: Password }, strict),
        response: {
          201: Type.Object({ ...AccountSummary.properties, verification_email_sent: Type.Boolean(), message: Type.Optional(Type.String()) }),
          ...errors,
          409: ErrorBody,
        },
      },
    },
    async (request, reply) => {
      filled('email', request.body.email, 'your email address');
      await limit(request, reply, `signup:ip:${request.ip}`);
      const { account, session, verificationSent } = await service.signUp(request.body.email, request.body.password);
      setSessionCookie(request, reply, session);
      const answer = { ...(await summary(account.id)), verification_email_sent: verificationSent };
      return reply.code(201).send(verificationSent ? answer : { ...answer, message: MAIL_NOT_SENT_ON_SIGN_UP });
    },
  );

  app.post(
    '/sign-in',
    { schema: { tags, summary: 'Sign in with email and password', body: Type.Object({ email: Email, password: Password }, strict), response: { 200: AccountSummary, ...errors } } },
    async (request, reply) => {
      filled('email', request.body.email, 'your email address');
      // Not trimmed: a password is compared as typed.
      if (request.body.password === '') throw badRequest('password: enter your password');
      await limit(request, reply, `signin:ip:${request.ip}`);
      await limit(request, reply, `signin:email:${await service.emailKey(request.body.email)}`);
      const { account, session } = await service.signIn(request.body.email, request.body.password);
      setSessionCookie(request, reply, session);
      return summary(account.id);
    },
  );

  app.post(
    '/operator/sign-in',
    { schema: { tags, summary: 'Open an operator console session with the admin token', body: Type.Object({ token: Type.String({ maxLength: 500 }) }, strict), response: { 200: Ok, ...errors } } },
    async (request, reply) => {
      filled('token', request.body.token, 'the admin token');
      await limit(request, reply, `operator:ip:${request.ip}`);
      if (!secureEqual(request.body.token, opts.adminToken)) throw unauthorized('wrong admin token');
      setSessionCookie(request, reply, await service.openOperatorSession());
      return { ok: true };
    },
  );

  app.post('/sign-out', { schema: { tags, summary: 'End this session', response: { 200: Ok, 401: ErrorBody, 403: ErrorBody } } }, async (request, reply) => {
    const cookie = request.cookies[SESSION_COOKIE];
    if (cookie) await service.signOut(cookie);
    clearSessionCookie(reply);
    return { ok: true };
  });

  app.post(
    '/verify-email',
    { schema: { tags, summary: 'Verify the email with the token from the emailed link', body: Type.Object({ token: Token }, strict), response: { 200: Ok, ...errors } } },
    async (request) => {
      await service.verifyEmail(request.body.token);
      return { ok: true };
    },
  );

  app.post(
    '/verify-email/resend',
    { schema: { tags, summary: 'Email a new verification link', response: { 200: Ok, ...errors, 409: ErrorBody, 503: ErrorBody } } },
    async (request, reply) => {
      const s = requireAccount(request);
      await limit(request, reply, `resend:acct:${s.accountId}`);
      await service.sendVerification(s.accountId);
      return { ok: true };
    },
  );

  app.post(
    '/password-reset',
    {
      schema: {
        tags,
        summary: 'Email a password reset link (answers the same whether the email has an account, unless the mail server does not take it: 503; a malformed address is 400)',
        body: Type.Object({ email: Email }, strict),
        response: { 200: Ok, ...errors, 503: ErrorBody },
      },
    },
    async (request, reply) => {
      filled('email', request.body.email, 'your email address');
      await limit(request, reply, `reset:ip:${request.ip}`);
      await limit(request, reply, `reset:email:${await service.emailKey(request.body.email)}`);
      await service.requestPasswordReset(request.body.email);
      return { ok: true };
    },
  );

  app.post(
    '/password-reset/confirm',
    { schema: { tags, summary: 'Set a new password with the token from the emailed link', body: Type.Object({ token: Token, password: Password }, strict), response: { 200: Ok, ...errors } } },
    async (request, reply) => {
      await limit(request, reply, `reset-confirm:ip:${request.ip}`);
      await service.resetPassword(request.body.token, request.body.password);
      return { ok: true };
    },
  );

  const KeyView = Type.Object({
    id: Type.Integer(),
    name: Type.String(),
    prefix: Type.String(),
    created_at: Type.String(),
    last_used_at: Type.Union([Type.String(), Type.Null()]),
    revoked_at: Type.Union([Type.String(), Type.Null()]),
  });
  const keyView = (k: { id: number; name: string; prefix: string; created_at: Date; last_used_at: Date | null; revoked_at: Date | null }) => ({
    id: k.id,
    name: k.name,
    prefix: k.prefix,
    created_at: k.created_at.toISOString(),
    last_used_at: k.last_used_at?.toISOString() ?? null,
    revoked_at: k.revoked_at?.toISOString() ?? null,
  });

  app.get('/keys', { schema: { tags, summary: 'Your svk_ keys', response: { 200: Type.Object({ keys: Type.Array(KeyView) }), 401: ErrorBody } } }, async (request) => {
    const s = requireAccount(request);
    // Key uses are written behind (API_KEY_LAST_USED_FLUSH_MS, docs/configuration.md): a key just used here shows as used.
    await opts.lastUsedWritten();
    return { keys: (await listAccountKeys(db, s.accountId)).map(keyView) };
  });

  app.post(
    '/keys',
    {
      schema: {
        tags,
        summary: 'Create a key; the whole svk_ secret is in this answer only',
        body: Type.Object({ name: KeyName }, strict),
        response: { 201: Type.Object({ ...KeyView.properties, key: Type.String() }), ...errors },
      },
    },
    async (request, reply) => {
      const s = requireAccount(request);
      // A cap, as the market API has for a wallet's keys: without one a session could mint keys
      // without end, and the Keys page lists every one (docs/api-decisions.md, "Market API:
      // thirteenth audit"). The operator's admin API is not limited.
      const k = await accounts.issueKeyUnderCap(s.accountId, request.body.name, MAX_LIVE_KEYS_PER_ACCOUNT);
      if (!k) throw badRequest(`keys: at most ${MAX_LIVE_KEYS_PER_ACCOUNT} live keys per account; revoke one first`);
      return reply.code(201).send({ ...keyView(k), key: k.key });
    },
  );

  app.delete(
    '/keys/:id',
    { schema: { tags, summary: 'Revoke a key', params: Type.Object({ id: Type.Integer({ minimum: 1, maximum: 2_147_483_647 }) }), response: { 200: KeyView, ...errors, 404: ErrorBody } } },
    async (request) => {
      const s = requireAccount(request);
      const own = (await listAccountKeys(db, s.accountId)).find((k) => k.id === request.params.id);
      if (!own) throw notFound('key not found');
      return keyView(await accounts.revokeKey(own.id));
    },
  );

  app.patch(
    '/keys/:id',
    {
      schema: {
        tags,
        summary: 'Rename a key (the key itself does not change)',
        params: Type.Object({ id: Type.Integer({ minimum: 1, maximum: 2_147_483_647 }) }),
        body: Type.Object({ name: KeyName }, strict),
        response: { 200: KeyView, ...errors, 404: ErrorBody },
      },
    },
    async (request) => {
      const s = requireAccount(request);
      const own = (await listAccountKeys(db, s.accountId)).find((k) => k.id === request.params.id);
      if (!own) throw notFound('key not found');
      return keyView(await accounts.renameKey(own.id, request.body.name, { allowBlank: false }));
    },
  );

  const RangeQuery = Type.Object({ from: Type.Optional(Day), to: Type.Optional(Day) }, strict);

  const usageRow = (r: Awaited<ReturnType<typeof usageRows>>[number]) => ({
    time: r.created_at.toISOString(),
    model: r.model,
    served_model: r.served_model,
    lane: r.lane,
    endpoint: r.endpoint,
    input_tokens: r.input_tokens,
    cached_input_tokens: r.cached_input_tokens,
    output_tokens: r.output_tokens,
    images: r.image_count,
    credits: creditsNumber(r.cost),
    cost_micro: r.cost.toString(),
    status: r.status,
    latency_ms: r.latency_ms,
  });

  app.get(
    '/usage',
    {
      schema: {
        tags,
        summary: 'Credits and tokens per day and model, and the latest requests (never prompt or answer text)',
        querystring: RangeQuery,
        response: {
          200: Type.Object({
            from: Type.String(),
            to: Type.String(),
            total_credits: Type.Number(),
            total_cost_micro: Type.String(),
            daily: Type.Array(
              Type.Object({
                day: Type.String(),
                model: Type.String(),
                requests: Type.Integer(),
                input_tokens: Type.Integer(),
                cached_input_tokens: Type.Integer(),
                output_tokens: Type.Integer(),
                images: Type.Integer(),
                credits: Type.Number(),
                cost_micro: Type.String(),
              }),
            ),
            recent: Type.Array(Type.Unsafe<Record<string, unknown>>({ type: 'object', additionalProperties: true })),
          }),
          ...errors,
        },
      },
    },
    async (request) => {
      const s = requireAccount(request);
      const range = rangeOf(request.query, Date.now());
      const daily = await dailyUsage(db, s.accountId, range);
      const total = daily.reduce((sum, d) => sum + d.cost, 0n);
      return {
        from: range.from.toISOString().slice(0, 10),
        to: new Date(range.to.getTime() - DAY_MS).toISOString().slice(0, 10),
        total_credits: creditsNumber(total),
        total_cost_micro: total.toString(),
        daily: daily.map((d) => ({
          day: d.day,
          model: d.model,
          requests: d.requests,
          input_tokens: d.inputTokens,
          cached_input_tokens: d.cachedInputTokens,
          output_tokens: d.outputTokens,
          images: d.images,
          credits: creditsNumber(d.cost),
          cost_micro: d.cost.toString(),
        })),
        recent: (await usageRows(db, s.accountId, range, 100)).map(usageRow),
      };
    },
  );

  app.get(
    '/usage.csv',
    { schema: { tags, summary: 'Every request in the range as CSV', querystring: RangeQuery, produces: ['text/csv'], response: { 200: Type.String(), ...errors } } },
    async (request, reply) => {
      const s = requireAccount(request);
      const range = rangeOf(request.query, Date.now());
      const rows = (await usageRows(db, s.accountId, range, 100_000)).map(usageRow);
      const header = ['time', 'model', 'served_model', 'lane', 'endpoint', 'input_tokens', 'cached_input_tokens', 'output_tokens', 'images', 'credits', 'status', 'latency_ms'] as const;
      const lines = [csvLine([...header]), ...rows.map((r) => csvLine(header.map((h) => r[h])))];
      return reply
        .type('text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="svc-usage-${range.from.toISOString().slice(0, 10)}.csv"`)
        .send(lines.join(''));
    },
  );

  app.get(
    '/credits',
    {
      schema: {
        tags,
        summary: 'Balance and a page of credit ledger rows, newest first',
        querystring: Type.Object({
          limit: Type.Optional(Type.String({ description: `Rows per page, 1 to ${MAX_LEDGER_PAGE}; default ${MAX_LEDGER_PAGE}` })),
          before: Type.Optional(Type.String({ description: 'Rows older than this ledger row id (the previous page\'s next_before)' })),
        }),
        response: {
          200: Type.Object({
            account: AccountSummary,
            ledger: Type.Array(
              Type.Object({
                id: Type.Integer(),
                time: Type.String(),
                kind: Type.String(),
                credits: Type.Number(),
                amount_micro: Type.String(),
                balance_after: Type.Number(),
                note: Type.Union([Type.String(), Type.Null()]),
              }),
            ),
            next_before: Type.Union([Type.Integer(), Type.Null()], { description: 'The `before` of the next (older) page; null on the last' }),
          }),
          401: ErrorBody,
        },
      },
    },
    async (request) => {
      const s = requireAccount(request);
      const { limit, before } = ledgerPageOf(request.query as { limit?: string; before?: string });
      // One row more than the page tells whether an older page exists.
      const rows = await listLedger(db, s.accountId, limit + 1, before);
      const ledger = rows.slice(0, limit);
      return {
        account: await summary(s.accountId),
        next_before: rows.length > limit ? Number(ledger[ledger.length - 1]!.id) : null,
        ledger: ledger.map((l) => ({
          id: Number(l.id),
          time: l.created_at.toISOString(),
          kind: l.kind,
          credits: creditsNumber(l.amount),
          amount_micro: l.amount.toString(),
          balance_after: creditsNumber(l.balance_after),
          note: l.note,
        })),
      };
    },
  );

  app.post(
    '/top-up',
    {
      schema: {
        tags,
        summary: 'Start a Stripe Checkout for credits (1 credit = 0.001 USD); 404 when Stripe is not configured',
        body: Type.Object({ usd: Type.Integer({ minimum: 5, maximum: 1000 }) }, strict),
        response: { 200: Type.Object({ url: Type.String() }), ...errors, 404: ErrorBody },
      },
    },
    async (request) => {
      const s = requireAccount(request);
      if (!opts.stripe) throw notFound('top-up is not available here');
      const account = await getAccountOrThrow(db, s.accountId);
      const origin = `${request.protocol}://${request.host}`;
      return { url: await opts.stripe.createCheckout({ accountId: account.id, email: account.email, cents: request.body.usd * 100, returnUrl: `${origin}/account/credits` }) };
    },
  );

  // Stripe signs the exact bytes it sent, so this route reads its body raw.
  await app.register(async (raw) => {
    raw.removeAllContentTypeParsers();
    raw.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: 1024 * 1024 }, (_req, body, done) => done(null, body));
    raw.post(
      '/stripe/webhook',
      { schema: { tags, summary: 'Stripe webhook (checkout.session.completed credits the account once per event)', response: { 200: Type.Object({ received: Type.Boolean(), credited: Type.Boolean() }), 400: ErrorBody, 404: ErrorBody } } },
      async (request) => {
        if (!opts.stripe) throw notFound('top-up is not available here');
        const signature = request.headers['stripe-signature'];
        if (typeof signature !== 'string' || !Buffer.isBuffer(request.body)) throw badRequest('invalid Stripe signature');
        const { credited } = await opts.stripe.handleWebhook(request.body, signature);
        return { received: true, credited };
      },
    );
  });
}

interface SessionRequest extends FastifyRequest {
  dashboardSession: DashboardSession | null;
}
