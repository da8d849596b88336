import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { sql } from 'kysely';
import { Type } from 'typebox';
import type { Db } from '../../storage/database.ts';
import { getAccountOrThrow } from '../account.repository.ts';
import { listAccountKeys } from '../api-key.repository.ts';
import type { AccountsService } from '../accounts.service.ts';
import { KEY_NAME_MAX } from '../key-name.ts';
import { listUsage } from '../usage.repository.ts';
import { AccountDetailView, AccountView, IssuedKeyView, KeyView, UsageView, accountView, keyView, usageView } from './accounts-admin.views.ts';

const Id = Type.Integer({ minimum: 1, maximum: 2_147_483_647 });
const IdParams = Type.Object({ id: Id });
const strict = { additionalProperties: false } as const;
// Checked by the accounts service (checkKeyName), in the dashboard's words: a schema maxLength
// would count the untrimmed text and answer in Ajv's.
const KeyName = Type.String({ description: `at most ${KEY_NAME_MAX} characters; no control characters` });

export interface AccountsAdminOptions {
  readonly db: Db;
  readonly accounts: AccountsService;
  /** Resolves once the charges this instance queued are written (Billing.written). */
  readonly chargesWritten: () => Promise<void>;
}

/** Operator routes for inference accounts, mounted by adminPlugin under /admin. */
export function accountsAdminRoutes(opts: AccountsAdminOptions): FastifyPluginAsync {
  return async (base: FastifyInstance) => {
    const app = base.withTypeProvider<TypeBoxTypeProvider>();
    const tags = ['admin: accounts'];
    const security = [{ bearer: [] }];
    const { db, accounts } = opts;
    // Charges are written behind the answers: a read here first writes this instance's queue,
    // so a balance or usage read shows every call answered before it.
    app.addHook('preHandler', async (request) => {
      if (request.method === 'GET') await opts.chargesWritten();
    });

    app.post(
      '/accounts',
      {
        schema: {
          tags,
          security,
          summary: 'Create an inference account',
          body: Type.Object({ email: Type.String({ maxLength: 254 }), email_verified: Type.Optional(Type.Boolean()) }, strict),
          response: { 201: AccountView },
        },
      },
      async (request, reply) => {
        const a = await accounts.createAccount({ email: request.body.email, emailVerified: request.body.email_verified });
        return reply.code(201).send(accountView(a));
      },
    );

    app.get(
      '/accounts',
      {
        schema: {
          tags,
          security,
          summary: 'Find accounts by email (a part of it, any case), newest first',
          querystring: Type.Object(
            {
              email: Type.Optional(Type.String({ maxLength: 254 })),
              limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
            },
            strict,
          ),
          response: { 200: Type.Object({ data: Type.Array(AccountView) }) },
        },
      },
      async (request) => {
        const q = (request.query.email ?? '').trim().toLowerCase();
        let query = db.selectFrom('accounts').selectAll().orderBy('id', 'desc').limit(request.query.limit ?? 20);
        // The search text is matched literally: LIKE's wildcards are escaped.
        if (q !== '') query = query.where(sql`lower(email)`, 'like', `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
        return { data: (await query.execute()).map(accountView) };
      },
    );

    app.get(
      '/accounts/:id',
      { schema: { tags, security, summary: 'An account with its keys', params: IdParams, response: { 200: AccountDetailView } } },
      async (request) => {
        const a = await getAccountOrThrow(db, request.params.id);
        const keys = await listAccountKeys(db, a.id);
        return { ...accountView(a), keys: keys.map(keyView) };
      },
    );

    app.post(
      '/accounts/:id/verify-email',
      { schema: { tags, security, summary: "Mark an account's email verified", params: IdParams, response: { 200: AccountView } } },
      async (request) => accountView(await accounts.verifyEmail(request.params.id)),
    );

    app.post(
      '/accounts/:id/credits',
      {
        schema: {
          tags,
          security,
          summary: 'Grant credits (negative takes them away); written to the credit ledger',
          params: IdParams,
          body: Type.Object(
            {
              credits: Type.Number({ description: 'credits (1 credit = 0.001 USD), at most 6 decimals, not zero' }),
              note: Type.Optional(Type.String({ maxLength: 500 })),
            },
            strict,
          ),
          response: { 200: AccountView },
        },
      },
      async (request) => {
        const note = request.body.note?.trim() || null;
        return accountView(await accounts.grantCredits(request.params.id, request.body.credits, note));
      },
    );

    app.post(
      '/accounts/:id/keys',
      {
        // The body is optional: a POST without one names no key.
        preValidation: async (request) => {
          request.body ??= {};
        },
        schema: {
          tags,
          security,
          summary: 'Issue an svk_ key; the key is in this answer only',
          params: IdParams,
          body: Type.Object({ name: Type.Optional(KeyName) }, strict),
          response: { 201: IssuedKeyView },
        },
      },
      async (request, reply) => {
        const k = await accounts.issueKey(request.params.id, request.body.name ?? '');
        return reply.code(201).send({ ...keyView(k), key: k.key });
      },
    );

    app.delete(
      '/keys/:id',
      { schema: { tags, security, summary: 'Revoke a key', params: IdParams, response: { 200: KeyView } } },
      async (request) => keyView(await accounts.revokeKey(request.params.id)),
    );

    app.patch(
      '/keys/:id',
      {
        schema: { tags, security, summary: 'Rename a key (the key itself does not change)', params: IdParams, body: Type.Object({ name: KeyName }, strict), response: { 200: KeyView } },
      },
      async (request) => keyView(await accounts.renameKey(request.params.id, request.body.name, { allowBlank: true })),
    );

    app.get(
      '/accounts/:id/usage',
      {
        schema: {
          tags,
          security,
          summary: "An account's requests with tokens and cost, newest first",
          params: IdParams,
          querystring: Type.Object(
            {
              limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 100 })),
              before: Type.Optional(Type.String({ pattern: '^[1-9][0-9]{0,17}$', description: 'usage id: list older rows' })),
            },
            strict,
          ),
          response: {
            200: Type.Object({
              account_id: Type.Integer(),
              data: Type.Array(UsageView),
              next_before: Type.Union([Type.String(), Type.Null()]),
            }),
          },
        },
      },
      async (request) => {
        const a = await getAccountOrThrow(db, request.params.id);
        const limit = request.query.limit ?? 100;
        const before = request.query.before;
        const rows = await listUsage(db, a.id, { limit, beforeId: before === undefined ? undefined : BigInt(before) });
        return {
          account_id: a.id,
          data: rows.map(usageView),
          next_before: rows.length === limit ? rows[rows.length - 1]!.id.toString() : null,
        };
      },
    );
  };
}
