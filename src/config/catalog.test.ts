import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { buildCatalog, substituteEnv } from './catalog.ts';
import { ConfigError, loadConfig } from './index.ts';

const base = () => ({
  providers: [{ id: 'up', type: 'openai', base_url: 'http://127.0.0.1:1/v1', api_key: '${KEY}' }],
  models: [
    { id: 'svc-a', type: 'chat', pricing: { input: 0.45, output: 0.9 }, deployments: [{ provider: 'up', model: 'm' }] },
  ],
});

function keyOf(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof ConfigError, String(e));
    return e.key;
  }
  assert.fail('expected a ConfigError');
}

describe('configuration', () => {
  it('loads the shipped default with every catalog model and exact prices', () => {
    const c = loadConfig({});
    const ids = [...c.catalog.models.keys()];
    for (const id of ['svc-shiplow', 'svc-fast', 'svc-vision', 'svc-pro', 'svc-ultra', 'svc-embed', 'svc-rerank']) {
      assert.ok(ids.includes(id), id);
    }
    const fast = c.catalog.models.get('svc-fast')!;
    assert.deepEqual([fast.context, fast.maxOutput], [1_000_000, 900_000]);
    assert.equal(fast.pricing.input, 450_000n);
    assert.equal(fast.pricing.output, 900_000n);
    assert.equal(c.catalog.models.get('svc-vision')!.pricing.output, 5_500_000n);
    assert.ok(c.catalog.models.get('svc-embed')!.endpoints.has('embeddings'));
    assert.ok(!c.catalog.models.get('svc-embed')!.endpoints.has('chat.completions'));
    assert.equal(c.catalog.demo, true, 'without keys the built-in demo provider serves the models');
    assert.equal(fast.deployments[0]!.provider.type, 'demo');
    const off = loadConfig({ DEMO_UPSTREAM: 'off' }).catalog;
    assert.equal(off.models.get('svc-fast')!.deployments[0]!.provider.configured, false, 'upstreams stay unconfigured without keys');
    assert.equal(loadConfig({ OPENAI_API_KEY: 'sk-x' }).catalog.demo, false, 'one configured upstream turns the demo off');
    assert.throws(() => loadConfig({ DEMO_UPSTREAM: 'yes' }), /DEMO_UPSTREAM: expected auto or off/);
  });

  it('substitutes ${VAR} and ${VAR:-default}', () => {
    assert.equal(substituteEnv('${A}/${B:-x}/${C}', { A: '1' }), '1/x/');
  });

  it('marks a provider configured only when its key resolves', () => {
    assert.equal(buildCatalog(base(), {}).providers.get('up')!.configured, false);
    assert.equal(buildCatalog(base(), { KEY: 'k' }).providers.get('up')!.configured, true);
  });

  it('reads TRUST_PROXY as the number of proxies in front: false 0, true 1, or 1 to 10', () => {
    const hops = (v: string | undefined) => loadConfig(v === undefined ? {} : { TRUST_PROXY: v }).trustProxyHops;
    assert.deepEqual([undefined, '', 'false', 'off', 'true', 'yes', '1', '2', '10'].map(hops), [0, 0, 0, 0, 1, 1, 1, 2, 10]);
  });

  it('names the key of a bad value', () => {
    const badPrice = base();
    (badPrice.models[0]!.pricing as Record<string, unknown>).input = '1.2.3';
    assert.equal(keyOf(() => buildCatalog(badPrice, {})), 'CONFIG_FILE models[0].pricing.input');

    const unknownKey = base() as Record<string, unknown>;
    (unknownKey.models as Record<string, unknown>[])[0]!.colour = 'red';
    assert.equal(keyOf(() => buildCatalog(unknownKey, {})), 'CONFIG_FILE models[0].colour');

    const unknownProvider = base();
    unknownProvider.models[0]!.deployments[0]!.provider = 'ghost';
    assert.equal(keyOf(() => buildCatalog(unknownProvider, {})), 'CONFIG_FILE models[0].deployments[0].provider');

    const badType = base();
    (badType.providers[0] as Record<string, unknown>).type = 'carrier-pigeon';
    assert.match(keyOf(() => buildCatalog(badType, {})), /^CONFIG_FILE providers\[0\]/);

    assert.equal(keyOf(() => loadConfig({ PORT: 'eighty' })), 'PORT');
    assert.equal(keyOf(() => loadConfig({ DATABASE_URL: 'mysql://x' })), 'DATABASE_URL');
    assert.equal(keyOf(() => loadConfig({ TRUST_PROXY: 'maybe' })), 'TRUST_PROXY');
    assert.equal(keyOf(() => loadConfig({ TRUST_PROXY: '11' })), 'TRUST_PROXY');
    assert.equal(keyOf(() => loadConfig({ TRUST_PROXY: '-1' })), 'TRUST_PROXY');
    assert.equal(keyOf(() => loadConfig({ RATE_LIMIT_MARKET_PER_MINUTE: '0' })), 'RATE_LIMIT_MARKET_PER_MINUTE');
  });

  it("takes a deployment's reasoning support from the deployment, else from the model's capability", () => {
    const raw = {
      providers: [{ id: 'up', type: 'openai', base_url: 'http://127.0.0.1:1/v1' }],
      models: [
        {
          id: 'svc-think',
          type: 'chat',
          capabilities: { reasoning: true },
          deployments: [{ provider: 'up', model: 'r' }, { provider: 'up', model: 'plain', reasoning: false }],
        },
        { id: 'svc-plain', type: 'chat', deployments: [{ provider: 'up', model: 'plain' }, { provider: 'up', model: 'r', reasoning: true }] },
      ],
    };
    const c = buildCatalog(raw, {});
    assert.deepEqual(c.models.get('svc-think')!.deployments.map((d) => d.reasoning), [true, false]);
    assert.deepEqual(c.models.get('svc-plain')!.deployments.map((d) => d.reasoning), [false, true]);
    const bad = structuredClone(raw) as { models: { deployments: Record<string, unknown>[] }[] };
    bad.models[0]!.deployments[1]!.reasoning = 'no';
    assert.equal(keyOf(() => buildCatalog(bad, {})), 'CONFIG_FILE models[0].deployments[1].reasoning');

    // The shipped catalog: svc-pro reasons on its Anthropic deployment, not on its OpenAI fallback;
    // svc-vision thinks on Anthropic; svc-fast does not reason.
    const shipped = loadConfig({ DEMO_UPSTREAM: 'off' }).catalog.models;
    const reasoning = (id: string) => shipped.get(id)!.deployments.map((d) => [d.provider.type, d.reasoning]);
    assert.deepEqual(reasoning('svc-pro'), [['anthropic', true], ['openai', false]]);
    assert.deepEqual(reasoning('svc-vision'), [['anthropic', true], ['openai', false]]);
    assert.deepEqual(reasoning('svc-fast'), [['openai', false]]);
  });

  it('gives embedding models their dimensions: as configured, else 1536; other models none', () => {
    const embed = (dimensions?: number) => ({
      providers: base().providers,
      models: [{ id: 'svc-e', type: 'embedding', ...(dimensions === undefined ? {} : { dimensions }), deployments: [{ provider: 'up', model: 'e' }] }],
    });
    assert.equal(buildCatalog(embed(3072), {}).models.get('svc-e')!.dimensions, 3072);
    assert.equal(buildCatalog(embed(), {}).models.get('svc-e')!.dimensions, 1536);
    assert.equal(buildCatalog(base(), {}).models.get('svc-a')!.dimensions, null);
    assert.equal(loadConfig({ DEMO_UPSTREAM: 'off' }).catalog.models.get('svc-embed')!.dimensions, 1536);
    assert.equal(keyOf(() => buildCatalog(embed(0), {})), 'CONFIG_FILE models[0].dimensions');
    const onChat = base();
    (onChat.models[0] as Record<string, unknown>).dimensions = 1024;
    assert.equal(keyOf(() => buildCatalog(onChat, {})), 'CONFIG_FILE models[0].dimensions');
  });

  it('names CONFIG_FILE when the file is missing or not YAML', () => {
    assert.equal(keyOf(() => loadConfig({ CONFIG_FILE: '/nonexistent.yaml' })), 'CONFIG_FILE');
    const dir = mkdtempSync(join(tmpdir(), 'cfg-'));
    const f = join(dir, 'bad.yaml');
    writeFileSync(f, 'models: [unclosed');
    assert.equal(keyOf(() => loadConfig({ CONFIG_FILE: f })), 'CONFIG_FILE');
  });
});
