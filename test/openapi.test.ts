import assert from 'node:assert/strict';
import SwaggerParser from '@apidevtools/swagger-parser';
import { after, before, describe, it } from 'node:test';
import { startTestApp, TEST_ADMIN_TOKEN, type TestApp } from './helpers/app.ts';

interface Operation {
  security?: Record<string, string[]>[];
  requestBody?: { content?: Record<string, { schema?: unknown }> };
  responses?: Record<string, { content?: Record<string, { schema?: unknown }> }>;
}
type Paths = Record<string, Record<string, Operation>>;

/** POST/PUT/PATCH routes that take no body: operator actions named by their path. */
const BODILESS = new Set([
  'post /admin/accounts/{id}/verify-email',
  'post /admin/events/{id}/feature',
  'post /admin/markets/{id}/activate',
  'post /admin/markets/{id}/feature',
  'post /admin/markets/{id}/cancel',
  'post /admin/wallets/{wallet}/api-keys',
  'post /admin/withdrawals/{id}/check',
  'post /admin/secrets/reseal',
  'post /dashboard/api/sign-out',
  'post /dashboard/api/verify-email/resend',
]);

const withSchema = (c: Record<string, { schema?: unknown }> | undefined): boolean => c !== undefined && Object.values(c).some((m) => m.schema !== undefined);

/** What an operation lacks, in words a failing test prints. */
function missingParts(method: string, path: string, op: Operation): string[] {
  const missing: string[] = [];
  if (['post', 'put', 'patch'].includes(method) && !BODILESS.has(`${method} ${path}`) && !withSchema(op.requestBody?.content)) {
    missing.push('a request body schema (or an entry in BODILESS of test/openapi.test.ts when it takes no body)');
  }
  const responses = Object.entries(op.responses ?? {});
  if (!responses.some(([code, r]) => code.startsWith('2') && withSchema(r.content))) missing.push('a 2xx response schema');
  if (!responses.some(([code, r]) => /^[45]/.test(code) && withSchema(r.content))) missing.push('error responses with their body schema');
  const needsSecurity = /^\/(admin|v1|inference\/v1)\//.test(path) && path !== '/v1/models' ? true : path.startsWith('/api/') && method !== 'get' && path !== '/api/pool/estimate';
  if (needsSecurity && !(op.security?.length)) missing.push('security (the credentials it takes)');
  return missing;
}

describe('the OpenAPI document', () => {
  let t: TestApp;
  let doc: { paths: Paths; components: { securitySchemes: Record<string, { type: string; scheme?: string; name?: string }> } };

  before(async () => {
    t = await startTestApp();
    doc = (await t.app.inject({ url: '/openapi.json' })).json();
  });
  after(async () => t?.close());

  it('is valid OpenAPI', async () => {
    await SwaggerParser.validate(structuredClone(doc) as never);
  });

  it('gives every operation of every surface its request, answer, errors and security', () => {
    const problems: string[] = [];
    let operations = 0;
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        operations++;
        const missing = missingParts(method, path, op);
        if (missing.length) problems.push(`${method.toUpperCase()} ${path} lacks ${missing.join('; ')}`);
      }
    }
    assert.deepEqual(problems, [], `${problems.length} of ${operations} operations are incomplete:\n${problems.join('\n')}`);
  });

  it('documents /inference/v1 like /v1, and the model endpoints bodies', () => {
    for (const p of ['/v1/chat/completions', '/inference/v1/chat/completions', '/v1/completions', '/v1/embeddings', '/v1/rerank', '/v1/images/generations']) {
      const op = doc.paths[p]?.post;
      assert.ok(op, `${p} is documented`);
      assert.ok(withSchema(op.requestBody?.content), `${p} has a request schema`);
    }
  });

  it('documents carrying reasoning: include reasoning.encrypted_content on /v1/responses, reasoning and reasoning_details on chat completions', () => {
    type Props = { properties: Record<string, { description?: string; items?: { properties?: Record<string, { enum?: string[] }> } }> };
    const body = (p: string) => (doc.paths[p]!.post!.requestBody!.content!['application/json']!.schema as Props).properties;
    for (const p of ['/v1/responses', '/inference/v1/responses']) assert.match(body(p).include!.description!, /reasoning\.encrypted_content/);
    const message = (body('/v1/chat/completions').messages!.items as Props).properties;
    assert.deepEqual(message.reasoning_details!.items!.properties!.format!.enum, ['svc-reasoning-v1']);
    const answer = doc.paths['/v1/chat/completions']!.post!.responses!['200']!.content!['application/json']!.schema as Props;
    const answered = ((answer.properties.choices!.items as Props).properties.message as Props).properties;
    assert.ok(answered.reasoning && answered.reasoning_details);
  });

  it('declares the security schemes of every surface', () => {
    const s = doc.components.securitySchemes;
    assert.equal(s.bearer?.scheme, 'bearer');
    assert.equal(s.xApiKey?.name, 'x-api-key');
    assert.equal(s.adminToken?.scheme, 'bearer');
    assert.deepEqual([s.marketApiKey?.name, s.marketTimestamp?.name, s.marketSignature?.name], ['x-api-key', 'x-api-timestamp', 'x-api-signature']);
    assert.deepEqual([s.walletMessage?.name, s.walletSignature?.name], ['x-wallet-message', 'x-wallet-signature']);
    assert.deepEqual(doc.paths['/api/pool/trade']!.post!.security, [
      { marketApiKey: [], marketTimestamp: [], marketSignature: [] },
      { walletMessage: [], walletSignature: [] },
    ]);
  });

  it('lets /docs "Try it out" call the admin routes with the token', async () => {
    assert.equal((await t.app.inject({ url: '/docs' })).statusCode, 200);
    // The page loads its document from /docs/json, and sends requests to its own origin.
    assert.match((await t.app.inject({ url: '/docs/static/swagger-initializer.js' })).body, /url: resolveUrl\('\.\/json'\)/);
    const served = (await t.app.inject({ url: '/docs/json' })).json() as typeof doc & { servers?: unknown };
    assert.deepEqual(served, doc, '/docs shows the document of /openapi.json');
    assert.equal(served.servers, undefined);
    assert.deepEqual(
      { type: served.components.securitySchemes.adminToken?.type, scheme: served.components.securitySchemes.adminToken?.scheme },
      { type: 'http', scheme: 'bearer' },
    );
    const unguarded = Object.entries(served.paths)
      .filter(([path]) => path.startsWith('/admin/'))
      .flatMap(([path, ops]) => Object.entries(ops).map(([method, op]) => ({ at: `${method.toUpperCase()} ${path}`, security: op.security })))
      .filter((op) => JSON.stringify(op.security) !== JSON.stringify([{ adminToken: [] }]))
      .map((op) => op.at);
    assert.deepEqual(unguarded, [], 'every admin operation asks Swagger UI for the admin token');

    // After "Authorize", Swagger UI sends an http bearer scheme as `Authorization: Bearer <value>`,
    // a JSON body with its content type, over HTTP to the page's origin.
    const url = await t.listen();
    const tryIt = (method: string, path: string, token: string | null, body?: unknown) =>
      fetch(`${url}${path}`, {
        method,
        headers: {
          accept: 'application/json',
          ...(token === null ? {} : { authorization: `Bearer ${token}` }),
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    assert.equal((await tryIt('GET', '/admin/audit', null)).status, 401, 'without "Authorize" the admin routes refuse');
    const audit = await tryIt('GET', '/admin/audit', TEST_ADMIN_TOKEN);
    assert.equal(audit.status, 200);
    assert.equal(((await audit.json()) as { balanced: boolean }).balanced, true);
    const created = await tryIt('POST', '/admin/accounts', TEST_ADMIN_TOKEN, { email: 'try-it-out@example.com', email_verified: true });
    assert.equal(created.status, 201);
    const { id } = (await created.json()) as { id: number };
    const read = await tryIt('GET', `/admin/accounts/${id}`, TEST_ADMIN_TOKEN);
    assert.equal(read.status, 200);
    assert.equal(((await read.json()) as { email: string }).email, 'try-it-out@example.com');
  });
});
