/**
 * The hostile-client sweep of issue 14: walks /openapi.json and sends, for every route and every
 * parameter, values of the wrong type, out of range, huge, empty, with NUL bytes or lone
 * surrogates, nested deeply and duplicated, unauthenticated and with valid credentials (the
 * admin token, a market API key, an svk_ key) so the bodies get past authentication and are
 * actually validated. It fails on any 5xx, any answer slower than 5 s, and any body that shows
 * a stack, SQL, a file path, an internal address or an upstream's name. On PGlite by default,
 * on PostgreSQL when DATABASE_URL is set.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import fc from 'fast-check';
import { UPSTREAM_MODELS, startGateway, type Gateway } from './helpers/gateway.ts';
import { createTestAccount } from './helpers/inference.ts';
import { hmacHeaders, nowSeconds, type ApiKeyCredentials } from './helpers/market-client.ts';

interface Param {
  readonly name: string;
  readonly in: 'path' | 'query' | 'header';
  readonly required?: boolean;
  readonly schema?: Schema;
}
interface Schema {
  readonly type?: string | string[];
  readonly properties?: Record<string, Schema>;
  readonly required?: string[];
  readonly enum?: unknown[];
  readonly pattern?: string;
  readonly anyOf?: Schema[];
}
interface Operation {
  readonly method: string;
  readonly path: string;
  readonly params: Param[];
  readonly body: Schema | null;
}
interface Sent {
  readonly label: string;
  readonly method: string;
  readonly url: string;
  readonly headers: Record<string, string>;
  readonly body?: string;
}

const HANG_MS = 5_000;
const CONCURRENCY = 6;

/** Bodies of the inference routes, which parse their JSON themselves (no body schema). */
const INFERENCE_BODIES: Record<string, Record<string, unknown>> = {
  '/v1/chat/completions': { model: 'svc-fast', messages: [{ role: 'user', content: 'hi' }], max_tokens: 5 },
  '/v1/completions': { model: 'svc-fast', prompt: 'hi', max_tokens: 5 },
  '/v1/embeddings': { model: 'svc-embed', input: 'hi' },
  '/v1/rerank': { model: 'svc-rerank', query: 'q', documents: ['a', 'b'] },
  '/v1/images/generations': { model: 'svc-image', prompt: 'a cat', n: 1 },
};

/** Raw (already URL-encoded) bad values for a path or query parameter. */
const BAD_PARAMS = [
  '1e309', 'Infinity', '-Infinity', 'NaN', '9223372036854775808', '-9223372036854775809', '2147483648',
  '99999999999999999999999', '-1', '0', '1.5', '0x10', 'abc', '', '%20', 'a%00b', '%00', '%ED%A0%80', '%F0%9F%98%80',
  '%C0%80', 'x'.repeat(5000), '[]', '{}', 'null', 'true', '%27%20or%201%3D1--', '..%2F..%2Fetc%2Fpasswd',
];

/** JSON texts put in place of one body field. */
const BAD_JSON_VALUES = [
  'true', 'false', 'null', '["x"]', '{}', '{"a":1}', '""', '"\\u0000"', '"a\\u0000b"', '"\\ud800"', '"\\udc00x"',
  '1e309', '-1e309', '9223372036854775808', '-9223372036854775809', '2147483648', '1.5', '-1', '0',
  '1e-7', '123456789012345678901234567890', `"${'x'.repeat(20_000)}"`, '"1e309"', '"Infinity"', '"9223372036854775808"',
  nested(200), `[${nested(2000)}]`,
];

/** Whole bodies, as sent. */
const BAD_BODIES = ['', 'null', '[]', '"x"', '1', 'true', '{', '{"a":', nested(5000), '{"a":1,"a":2}', '{"__proto__":{"x":1}}'];

function nested(depth: number): string {
  return '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
}

/** What a body may never show. */
const LEAKS: [string, RegExp][] = [
  ['stack', /\n\s+at |\bat [\w.<>]+ \(/],
  ['SQL', /\b(select\s.+\sfrom|insert into|update\s+\w+\s+set|delete from)\b|syntax error at|violates (unique|foreign|check|not-null)|relation "|invalid input syntax|out of range for type|PGlite|duplicate key/i],
  ['file path', /\/(work|home|usr|root|tmp|src|node_modules)\/|\.ts:\d+|\.js:\d+/],
  ['internal address', /127\.0\.0\.1|localhost|\[::1\]|\b(10|192\.168|172\.(1[6-9]|2\d|3[01]))\.\d+\.\d+|ECONNREFUSED|:5432\b|:6379\b/],
  ['upstream name', new RegExp([...Object.values(UPSTREAM_MODELS), 'main-openai', 'main-anthropic', 'main-rerank', 'main-images', 'fakeopenai', 'fake-anthropic', 'openai', 'anthropic'].map((s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|'), 'i')],
];

let g: Gateway;
let adminAuth: Record<string, string>;
let svkAuth: Record<string, string>;
let marketKey: ApiKeyCredentials;
let wallet: string;
let marketId: number;
let ops: Operation[];

before(async () => {
  g = await startGateway({
    env: {
      RATE_LIMIT_MARKET_PER_MINUTE: '1000000',
      RATE_LIMIT_INFERENCE_PER_MINUTE: '1000000',
      RATE_LIMIT_IMAGES_PER_MINUTE: '1000000',
    },
  });
  adminAuth = g.t.admin;
  const account = await createTestAccount(g.t, { credits: 1000 });
  svkAuth = { authorization: `Bearer ${account.key}` };
  wallet = '0x' + 'ab'.repeat(20);
  const key = await g.t.app.inject({ method: 'POST', url: `/admin/wallets/${wallet}/api-keys`, headers: adminAuth });
  assert.equal(key.statusCode, 201, key.body);
  marketKey = key.json() as ApiKeyCredentials;
  const market = await g.t.app.inject({
    method: 'POST',
    url: '/admin/markets',
    headers: adminAuth,
    payload: { title: 'Fuzz market', category: 'test', market_type: 'yesno', end_date: new Date(Date.now() + 30 * 86_400_000).toISOString() },
  });
  assert.equal(market.statusCode, 201, market.body);
  marketId = market.json().id as number;
  const doc = (await g.t.app.inject({ url: '/openapi.json' })).json() as {
    paths: Record<string, Record<string, { parameters?: Param[]; requestBody?: { content: Record<string, { schema: Schema }> } }>>;
  };
  ops = [];
  for (const [path, methods] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      ops.push({ method: method.toUpperCase(), path, params: op.parameters ?? [], body: op.requestBody?.content['application/json']?.schema ?? null });
    }
  }
});

after(async () => {
  await g?.close();
});

/** A value a parameter accepts, so a case changes one thing at a time. */
function goodParam(p: Param): string {
  const s = p.schema ?? {};
  if (s.pattern?.includes('0x')) return wallet;
  if (s.enum) return String(s.enum[0]);
  const type = Array.isArray(s.type) ? s.type[0] : s.type;
  if (type === 'integer' || type === 'number') return p.name === 'id' || p.name === 'market' ? String(marketId) : '1';
  if (p.name === 'ids') return String(marketId);
  if (p.name === 'model') return 'svc-fast';
  return 'x';
}

function goodBody(op: Operation): Record<string, unknown> {
  const inference = INFERENCE_BODIES[op.path];
  if (inference) return { ...inference };
  const out: Record<string, unknown> = {};
  for (const [name, s] of Object.entries(op.body?.properties ?? {})) {
    if (!op.body?.required?.includes(name)) continue;
    const type = Array.isArray(s.type) ? s.type[0] : (s.type ?? s.anyOf?.[0]?.type);
    if (name === 'wallet_addr') out[name] = wallet;
    else if (s.enum) out[name] = s.enum[0];
    else if (type === 'integer' || type === 'number') out[name] = name === 'market_id' ? marketId : 1;
    else if (type === 'boolean') out[name] = false;
    else if (type === 'array') out[name] = [];
    else if (type === 'object') out[name] = {};
    else out[name] = 'x';
  }
  return out;
}

function urlOf(op: Operation, values: Record<string, string>): string {
  let path = op.path;
  const query: string[] = [];
  for (const p of op.params) {
    const v = values[p.name] ?? (p.required ? goodParam(p) : undefined);
    if (v === undefined) continue;
    if (p.in === 'path') path = path.replace(`{${p.name}}`, v);
    else if (p.in === 'query') query.push(`${p.name}=${v}`);
  }
  return query.length ? `${path}?${query.join('&')}` : path;
}

/** Each credential the route could take, and none. */
function signers(op: Operation): ((method: string, url: string, body: string) => Record<string, string>)[] {
  const none = () => ({});
  if (op.path.startsWith('/admin/')) return [none, () => adminAuth];
  if (op.path.startsWith('/v1/')) return [none, () => svkAuth];
  if (op.path.startsWith('/api/') && op.method !== 'GET') {
    return [
      none,
      (method, url, body) => hmacHeaders(marketKey, { method, path: url.split('?')[0]!, body, timestamp: nowSeconds() }),
    ];
  }
  return [none];
}

function casesOf(op: Operation): Sent[] {
  const out: Sent[] = [];
  const withBody = op.method !== 'GET' && op.method !== 'DELETE';
  const base = withBody ? JSON.stringify(goodBody(op)) : undefined;
  const all = signers(op);
  // Field-by-field cases are sent with credentials only: without, authentication refuses them
  // all alike before the body is looked at (the parameter and whole-body cases cover that path).
  const push = (label: string, url: string, body: string | undefined, extra: Record<string, string> = {}, authenticatedOnly = false) => {
    for (const sign of authenticatedOnly ? all.slice(-1) : all) {
      const headers: Record<string, string> = { ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...extra };
      Object.assign(headers, sign(op.method, url, body ?? ''));
      out.push({ label, method: op.method, url, headers, body });
    }
  };
  push('as documented', urlOf(op, {}), base);
  for (const p of op.params) {
    if (p.in === 'header') {
      for (const v of ['', 'x'.repeat(5000), '\u00e9\u00e9']) push(`header ${p.name}=${v.slice(0, 10)}`, urlOf(op, {}), base, { [p.name]: v });
      continue;
    }
    for (const v of BAD_PARAMS) push(`${p.in} ${p.name}=${v.slice(0, 30)}`, urlOf(op, { [p.name]: v }), base);
    if (p.in === 'query') {
      const good = goodParam(p);
      push(`query ${p.name} duplicated`, `${urlOf(op, { [p.name]: good })}&${p.name}=${good}`, base);
      push(`query ${p.name} as array`, `${urlOf(op, {})}${op.params.some((x) => x.in === 'query' && x.required) ? '&' : '?'}${p.name}[]=1`, base);
    }
  }
  if (!withBody) return out;
  const url = urlOf(op, {});
  for (const b of BAD_BODIES) push(`body ${b.slice(0, 20)}`, url, b);
  push('body with charset latin1', url, base, { 'content-type': 'application/json; charset=latin1' });
  push('body as text/plain', url, base, { 'content-type': 'text/plain' });
  const fields = new Set([...Object.keys(op.body?.properties ?? {}), ...Object.keys(goodBody(op))]);
  const good = goodBody(op);
  for (const field of fields) {
    for (const v of BAD_JSON_VALUES) {
      const text = JSON.stringify({ ...good, [field]: '\u0001' }).replace('"\\u0001"', v);
      push(`body ${field}=${v.slice(0, 20)}`, url, text, {}, true);
    }
    push(`body ${field} duplicated`, url, JSON.stringify(good).replace(/^\{/, `{"${field}":"dup",`), {}, true);
  }
  // Random JSON in place of the body and of each field (a fixed seed: the same cases each run).
  const values = fc.sample(fc.jsonValue({ maxDepth: 4 }), { numRuns: 12, seed: 14 });
  for (const v of values) push('random body', url, JSON.stringify(v), {}, true);
  for (const field of fields) {
    for (const v of fc.sample(fc.oneof(fc.jsonValue({ maxDepth: 2 }), fc.string({ unit: 'binary' }), fc.double(), fc.bigInt().map(String)), { numRuns: 6, seed: field.length })) {
      push(`random ${field}`, url, JSON.stringify({ ...good, [field]: v }), {}, true);
    }
  }
  return out;
}

interface Finding {
  readonly label: string;
  readonly what: string;
}

async function send(c: Sent): Promise<Finding | null> {
  const where = `${c.method} ${c.url.slice(0, 120)} [${c.label}${c.headers.authorization || c.headers['x-api-key'] ? ', authenticated' : ''}]`;
  let status: number;
  let text: string;
  try {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(new DOMException('no answer', 'TimeoutError')), HANG_MS);
    try {
      const res = await fetch(g.t.url + c.url, { method: c.method, headers: c.headers, body: c.body, signal: controller.signal });
      status = res.status;
      // An event stream that opened is an answer: it runs until the client leaves.
      if (status === 200 && (res.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
        controller.abort();
        return null;
      }
      text = await res.text();
    } finally {
      clearTimeout(timer);
    }
  } catch (e) {
    return { label: where, what: `no answer within ${HANG_MS} ms (${(e as Error).name})` };
  }
  if (status >= 500) return { label: where, what: `${status} ${text.slice(0, 200)}` };
  // The document itself and the metrics name routes and files by design; /admin/upstreams tells
  // the operator (behind the admin token) which upstream each deployment is.
  if (c.url.startsWith('/openapi.json') || c.url.startsWith('/metrics') || c.url.startsWith('/docs')) return null;
  if (c.url.startsWith('/admin/upstreams') && status === 200) return null;
  for (const [name, re] of LEAKS) {
    const m = re.exec(text);
    if (m) return { label: where, what: `shows ${name}: …${text.slice(Math.max(0, m.index - 60), m.index + 60)}…` };
  }
  return null;
}

async function sweep(cases: Sent[]): Promise<Finding[]> {
  const findings: Finding[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < cases.length) {
        const f = await send(cases[next++]!);
        if (f) findings.push(f);
      }
    }),
  );
  return findings;
}

test('every route of /openapi.json answers malformed input with a 4xx that shows nothing internal', async (t) => {
  const cases = ops.flatMap(casesOf);
  t.diagnostic(`${cases.length} requests over ${ops.length} operations`);
  // The inference routes are not in the document with their bodies; they are swept all the same.
  assert.ok(ops.some((o) => o.path === '/v1/chat/completions'), 'the inference routes are in /openapi.json');
  assert.ok(cases.length > 1500, `a real sweep (${cases.length} cases)`);
  const findings = await sweep(cases);
  assert.deepEqual(
    findings.map((f) => `${f.label}: ${f.what}`),
    [],
  );
});
