import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestApp, type TestApp } from './helpers/app.ts';

/**
 * Routes /openapi.json leaves out on purpose: the HTML pages of the dashboard, the documents
 * themselves, and the two OpenAI responses routes whose only answer is a refusal (docs/api-decisions.md,
 * "Documents checked against the code (session 26)").
 */
const UNLISTED = [
  /^get \/$/,
  /^get \/(account|console)(\/|$)/,
  /^get \/dashboard\/?$/,
  /^get \/docs(\/|$)/,
  /^get \/openapi\.json$/,
  /^get \/(inference\/)?v1\/responses$/,
  /^post \/(inference\/)?v1\/responses\/\{id\}\/cancel$/,
];

/** `METHOD path` of every route, read from Fastify's route tree (`printRoutes` with full segments). */
function routesOf(tree: string): string[] {
  const parents: string[] = [];
  const routes: string[] = [];
  for (const line of tree.split('\n')) {
    const m = /^([\s│]*)[├└]── (.+?) \(([A-Z, ]+)\)$/.exec(line);
    if (!m) continue;
    const depth = m[1]!.length / 4;
    const path = (parents[depth - 1] ?? '') + m[2]!;
    parents[depth] = path;
    parents.length = depth + 1;
    if (path.includes('*')) continue;
    for (const method of m[3]!.split(', ')) {
      if (method === 'HEAD' || method === 'OPTIONS') continue;
      routes.push(`${method.toLowerCase()} ${path.replace(/:(\w+)/g, '{$1}')}`);
    }
  }
  return routes;
}

describe('/openapi.json lists the service', () => {
  let t: TestApp;
  let paths: Record<string, Record<string, { requestBody?: { content: Record<string, { schema: { properties: Record<string, unknown> } }> } }>>;

  before(async () => {
    t = await startTestApp();
    paths = (await t.app.inject({ url: '/openapi.json' })).json().paths;
  });
  after(async () => t?.close());

  it('every route the service answers, but the pages and the refusal-only routes', () => {
    const routes = routesOf(t.app.printRoutes({ commonPrefix: false }));
    assert.ok(routes.length > 100, `read the routes (${routes.length})`);
    const listed = new Set(Object.entries(paths).flatMap(([path, ops]) => Object.keys(ops).map((method) => `${method} ${path}`)));
    const missing = routes.filter((r) => !listed.has(r) && !UNLISTED.some((u) => u.test(r)));
    assert.deepEqual(missing, [], 'routes missing from /openapi.json');
    const unknown = [...listed].filter((r) => !routes.includes(r));
    assert.deepEqual(unknown, [], 'operations of /openapi.json that no route serves');
  });

  it("chat completions' body lists the OpenAI fields it accepts and ignores, and the ones it refuses", () => {
    for (const path of ['/v1/chat/completions', '/inference/v1/chat/completions']) {
      const body = paths[path]!.post!.requestBody!.content['application/json']!.schema.properties;
      for (const field of ['n', 'seed', 'presence_penalty', 'frequency_penalty', 'logit_bias', 'logprobs', 'top_logprobs', 'metadata', 'service_tier', 'store', 'verbosity', 'modalities', 'audio', 'functions', 'function_call']) {
        assert.ok(field in body, `${path} lists ${field}`);
      }
    }
    const completions = paths['/v1/completions']!.post!.requestBody!.content['application/json']!.schema.properties;
    for (const field of ['n', 'seed', 'presence_penalty', 'frequency_penalty', 'logit_bias', 'logprobs', 'echo', 'suffix', 'best_of']) {
      assert.ok(field in completions, `/v1/completions lists ${field}`);
    }
  });
});
