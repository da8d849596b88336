import assert from 'node:assert/strict';
import { postJson, type Gateway } from './gateway.ts';

/**
 * The spec-audit suites' requests: a POST with the account's key, a refusal (a 400 in the
 * documented shape, nothing sent upstream) and an answer. `current` reads the suite's gateway and
 * key when called, since the suites start them in `before`.
 */
export function auditRequests(current: () => { readonly g: Gateway; readonly key: string }) {
  const post = (path: string, body: unknown, key = current().key) => postJson(current().g, key, path, body);
  const upstreamCalls = () => current().g.openai.requests.length + current().g.anthropic.requests.length;

  /** A 400 in the documented shape, with this message, and nothing sent upstream. */
  async function refused(path: string, body: unknown, error: string, key = current().key): Promise<void> {
    const before = upstreamCalls();
    const r = await post(path, body, key);
    assert.equal(r.status, 400, `${path} ${JSON.stringify(body)}: ${await r.clone().text()}`);
    assert.deepEqual(await r.json(), { error }, `${path} ${JSON.stringify(body)}`);
    assert.equal(upstreamCalls(), before, `${path}: nothing goes upstream`);
  }

  /** The request is answered (200); the fake upstream gets one scenario for it. */
  async function answered(path: string, body: unknown, upstream: 'openai' | 'anthropic' = 'openai'): Promise<void> {
    current().g[upstream].chat.enqueue({ text: 'ok' });
    const r = await post(path, body);
    assert.equal(r.status, 200, `${path} ${JSON.stringify(body)}: ${await r.clone().text()}`);
    await r.arrayBuffer();
  }

  return { post, upstreamCalls, refused, answered };
}
