import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PIPELINE_LANES, buildCatalog, type ModelConfig } from '../../config/catalog.ts';
import { HttpError } from '../../shared/errors.ts';
import type { CanonicalChatRequest } from '../canonical/chat.ts';
import { LANES } from './classify-lane.ts';
import { requestNeeds, type RequestNeeds } from './request-needs.ts';
import { routeForLane, routeModel } from './route-model.ts';

function catalogWith(env: Record<string, string>) {
  return buildCatalog(
    {
      providers: [
        { id: 'a', type: 'openai', base_url: 'https://a.example/v1', api_key: '${A_KEY}' },
        { id: 'b', type: 'anthropic', base_url: 'https://b.example', api_key: '${B_KEY}' },
      ],
      models: [
        { id: 'svc-fast', type: 'chat', max_output: 900000, deployments: [{ provider: 'a', model: 'm' }] },
        { id: 'svc-pro', type: 'chat', max_output: 1000, deployments: [{ provider: 'b', model: 'm' }] },
        { id: 'svc-vision', type: 'chat', capabilities: { vision: true }, deployments: [{ provider: 'b', model: 'v' }] },
        {
          id: 'svc-lanes',
          type: 'chat',
          max_output: 32768,
          pipeline: { code: ['svc-pro', 'svc-fast'], math: 'svc-pro', vision: 'svc-vision', general: 'svc-fast' },
        },
      ],
      default_model: 'svc-lanes',
    },
    env,
  );
}

const text = (t: string): CanonicalChatRequest => ({ messages: [{ role: 'user', content: [{ type: 'text', text: t }] }], tools: [], stop: [], stream: false });
const needsOf = (r: CanonicalChatRequest): RequestNeeds => requestNeeds(r);

describe('routeModel', () => {
  it('serves a model with deployments itself, and endpoints without a chat request too', () => {
    const c = catalogWith({ A_KEY: 'x' });
    const fast = c.models.get('svc-fast')!;
    const r = routeModel(c, fast, text('hi'));
    assert.deepEqual([r.requested, r.billed, r.lane], [fast, fast, null]);
    assert.deepEqual(r.executors.map((e) => e.upstreamModel), [fast]);
    assert.equal(routeModel(c, fast, null).executors[0]!.brand, fast);
  });

  it("sends a lane to its executors in order, each under the pipeline's id and the tighter output limit", () => {
    const c = catalogWith({ A_KEY: 'x', B_KEY: 'y' });
    const lanes = c.models.get('svc-lanes')!;
    const r = routeForLane(c, lanes, 'code', needsOf(text('fix this')));
    assert.equal(r.lane, 'code');
    assert.equal(r.billed, lanes, 'billed at the pipeline prices');
    assert.deepEqual(r.executors.map((e) => [e.brand.id, e.lane]), [['svc-pro', 'code'], ['svc-fast', 'code'], ['svc-vision', 'vision']]);
    assert.deepEqual(r.executors.slice(0, 2).map((e) => [e.upstreamModel.id, e.upstreamModel.maxOutput]), [['svc-lanes', 1000], ['svc-lanes', 32768]]);
    assert.deepEqual(r.executors[0]!.upstreamModel.deployments, c.models.get('svc-pro')!.deployments);
  });

  it('falls back to the general lane, then the other lanes, when a lane cannot serve', () => {
    const onlyB = catalogWith({ B_KEY: 'y' });
    const r = routeForLane(onlyB, onlyB.models.get('svc-lanes')!, 'math', needsOf(text('2+2')));
    assert.deepEqual(r.executors.map((e) => e.brand.id), ['svc-pro', 'svc-vision']);
    const onlyA = catalogWith({ A_KEY: 'x' });
    const m = routeForLane(onlyA, onlyA.models.get('svc-lanes')!, 'math', needsOf(text('2+2')));
    assert.deepEqual(m.executors.map((e) => [e.brand.id, e.lane]), [['svc-fast', 'general']]);
    const unlisted = routeForLane(onlyA, onlyA.models.get('svc-lanes')!, 'multilingual', needsOf(text('hola')));
    assert.deepEqual(unlisted.executors.map((e) => [e.brand.id, e.lane]), [['svc-fast', 'general']]);
  });

  it('classifies the request: images go to the vision lane, tools to the agent lane, the rest to general', () => {
    const c = catalogWith({ A_KEY: 'x', B_KEY: 'y' });
    const lanes = c.models.get('svc-lanes')!;
    const image: CanonicalChatRequest = { ...text('what is this'), messages: [{ role: 'user', content: [{ type: 'image', url: 'https://x.test/a.png' }] }] };
    const v = routeModel(c, lanes, image);
    assert.equal(v.lane, 'vision');
    assert.deepEqual(v.executors.map((e) => e.brand.id), ['svc-vision'], 'only executors that see serve images');
    assert.equal(lanes.capabilities.vision, true, 'a pipeline with a vision executor takes images');
    const agent = routeModel(c, lanes, { ...text('call it'), tools: [{ name: 'f', parameters: { type: 'object' } }] });
    assert.equal(agent.lane, 'agent');
    assert.equal(agent.executors[0]!.brand.id, 'svc-fast', 'no agent lane: the general lane serves');
    assert.equal(routeModel(c, lanes, text('hi')).lane, 'general');
  });

  it("passes over an executor whose own output limit the request exceeds; 400 when none takes it", () => {
    const c = catalogWith({ A_KEY: 'x', B_KEY: 'y' });
    const lanes = c.models.get('svc-lanes')!;
    const r = routeForLane(c, lanes, 'code', needsOf({ ...text('fix this'), maxTokens: 5000 }));
    assert.deepEqual(r.executors.map((e) => e.brand.id), ['svc-fast', 'svc-vision'], "svc-pro's max output is 1000");
    const onlyB = catalogWith({ B_KEY: 'y' });
    const image: CanonicalChatRequest = { ...text('x'), maxTokens: 5000, messages: [{ role: 'user', content: [{ type: 'image', url: 'https://x.test/a.png' }] }] };
    (onlyB.models as Map<string, ModelConfig>).set('svc-vision', { ...onlyB.models.get('svc-vision')!, maxOutput: 1000 });
    assert.throws(
      () => routeModel(onlyB, onlyB.models.get('svc-lanes')!, image),
      (e: unknown) => e instanceof HttpError && e.status === 400 && /^model svc-lanes: no executor takes this request \(images, about \d+ input tokens, 5000 output tokens\)$/.test(e.message),
    );
  });

  it('answers 503 when no lane can serve the request', () => {
    const c = catalogWith({ A_KEY: 'x' });
    const image: CanonicalChatRequest = { ...text('x'), messages: [{ role: 'user', content: [{ type: 'image', url: 'https://x.test/a.png' }] }] };
    assert.throws(
      () => routeModel(c, c.models.get('svc-lanes')!, image),
      (e: unknown) => e instanceof HttpError && e.status === 503 && e.message === 'model svc-lanes is not available',
    );
  });

  it('the catalog knows the lanes the classifier has', () => {
    assert.deepEqual([...PIPELINE_LANES], [...LANES]);
  });
});
