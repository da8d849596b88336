import { mkdtempSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { answerProfileMessages } from '../lib/profile-child.ts';
import { serverStats } from '../lib/thread-cpu.ts';

/**
 * Child process of bench/gateway.ts: the real gateway (c), listening on loopback, on PGlite in a
 * temp dir or on DATABASE_URL, with svc-fast on the instant upstream (svc-fast-anthropic on its
 * Anthropic side) and svc-slow on the
 * slow-streaming one (svc-lanes, a pipeline, and svc-auto both execute on svc-fast, for
 * bench/routing.ts), and one account with credits and a key. Answers 'memory' with its
 * process.memoryUsage() (after a full GC when asked).
 */
const [instantUrl, slowUrl] = process.argv.slice(2) as [string, string];

// The app as `npm start` runs it: compiled JavaScript from dist/ (built here when the sources
// changed), not tsx's transpiled sources, whose name helpers and source-mapped stacks cost CPU of
// their own. BENCH_SOURCE=1 runs the sources under tsx instead.
const fromSource = process.env.BENCH_SOURCE === '1';
const repo = fileURLToPath(new URL('../../', import.meta.url));
if (!fromSource) execFileSync(process.execPath, ['scripts/build-if-stale.mjs'], { cwd: repo, stdio: ['ignore', 'ignore', 'inherit'] });
const appModule = (path: string) => new URL(`../../${fromSource ? 'src' : 'dist'}/${path}.${fromSource ? 'ts' : 'js'}`, import.meta.url).href;
const { buildApp } = (await import(appModule('app'))) as typeof import('../../src/app.ts');
const { loadConfig } = (await import(appModule('config/index'))) as typeof import('../../src/config/index.ts');
const { createDeps } = (await import(appModule('deps'))) as typeof import('../../src/deps.ts');
const dir = mkdtempSync(join(tmpdir(), 'svc-bench-'));
const configFile = join(dir, 'catalog.yaml');
writeFileSync(
  configFile,
  `
providers:
  - { id: bench-instant, type: openai, base_url: "${instantUrl}/v1", api_key: bench-key, connections: 256 }
  - { id: bench-instant-anthropic, type: anthropic, base_url: "${instantUrl}", api_key: bench-key, connections: 256 }
  - { id: bench-slow, type: openai, base_url: "${slowUrl}/v1", api_key: bench-key, connections: 2000 }
models:
  - id: svc-fast
    type: chat
    context: 1000000
    max_output: 900000
    pricing: { input: 0.45, cached_input: 0.1125, output: 0.90 }
    deployments: [{ provider: bench-instant, model: upstream-model }]
  - id: svc-fast-anthropic
    type: chat
    context: 1000000
    max_output: 900000
    pricing: { input: 0.45, cached_input: 0.1125, output: 0.90 }
    deployments: [{ provider: bench-instant-anthropic, model: upstream-model }]
  - id: svc-slow
    type: chat
    context: 1000000
    max_output: 900000
    pricing: { input: 0.45, cached_input: 0.1125, output: 0.90 }
    deployments: [{ provider: bench-slow, model: upstream-model }]
  - id: svc-lanes
    type: chat
    pricing: { input: 0.30, cached_input: 0.075, output: 0.60 }
    pipeline: { general: [svc-fast], code: [svc-fast] }
  - id: svc-auto
    type: chat
auto:
  candidates: [svc-fast]
`,
);
const ADMIN = 'bench-admin-token-0123456789abcdef';
const config = loadConfig({
  ...process.env,
  CONFIG_FILE: configFile,
  DATA_DIR: dir,
  ADMIN_TOKEN: ADMIN,
  LOG_LEVEL: process.env.LOG_LEVEL ?? 'info',
  RATE_LIMIT_INFERENCE_PER_MINUTE: '1000000',
});
const deps = await createDeps(config);
const app = await buildApp(deps);
let requests = 0;
app.addHook('onResponse', (_request, _reply, done) => {
  requests++;
  done();
});
await app.listen({ port: 0, host: '127.0.0.1' });
const url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;

const admin = { authorization: `Bearer ${ADMIN}` };
const account = await app.inject({ method: 'POST', url: '/admin/accounts', headers: admin, payload: { email: `bench-${Date.now()}@example.com`, email_verified: true } });
const id = account.json().id as number;
await app.inject({ method: 'POST', url: `/admin/accounts/${id}/credits`, headers: admin, payload: { credits: 900_000_000 } });
const key = (await app.inject({ method: 'POST', url: `/admin/accounts/${id}/keys`, headers: admin, payload: { name: 'bench' } })).json().key as string;

// The load runs' own profiles (BENCH_PROFILE): started and stopped around each run, so start-up
// (module compilation, the embedded database's boot) is not in them.
answerProfileMessages(() => requests);

process.on('message', (m: { type: string; gc?: boolean }) => {
  if (m.type === 'memory') {
    if (m.gc && typeof global.gc === 'function') global.gc();
    process.send!({ type: 'memory', usage: process.memoryUsage() });
  }
  if (m.type === 'stats') process.send!(serverStats(requests));
  if (m.type === 'usage-count') {
    // Records, what they cost, and the balance: streams must bill exactly what they recorded.
    void deps.db
      .selectFrom('accounts')
      .select((eb) => [
        'credits',
        eb.selectFrom('usage_records').select((u) => u.fn.countAll<string>().as('n')).where('account_id', '=', id).as('n'),
        eb.selectFrom('usage_records').select((u) => u.fn.sum<string>('cost').as('cost')).where('account_id', '=', id).as('cost'),
      ])
      .where('id', '=', id)
      .executeTakeFirstOrThrow()
      .then((r) => process.send!({ type: 'usage-count', count: Number(r.n), cost: String(r.cost ?? 0), credits: String(r.credits) }));
  }
  if (m.type === 'close') {
    void app
      .close()
      .then(() => deps.close())
      .finally(() => process.exit(0));
  }
});
process.send!({ type: 'ready', url, key, database: deps.dbKind });
