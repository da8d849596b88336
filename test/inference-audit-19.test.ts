import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { accountCredits, postJson, startWithSdks, usageRows, type Gateway } from './helpers/gateway.ts';
import type { TestAccount } from './helpers/inference.ts';
import { auditRequests } from './helpers/spec-audit.ts';

/**
 * Findings of a nineteenth audit of the inference API, tried with the official `openai` client and
 * plain HTTP (docs/api-decisions.md, "Inference: nineteenth audit").
 */
describe('inference API, nineteenth audit', () => {
  let g: Gateway;
  let acct: TestAccount;

  before(async () => void ({ g, acct } = await startWithSdks()));
  after(() => g.close());

  const { upstreamCalls } = auditRequests(() => ({ g, key: acct.key }));

  /** `run` changes neither the balance nor the usage records, and sends nothing to any upstream. */
  async function nothingSpent(run: () => Promise<void>): Promise<void> {
    const balance = await accountCredits(g.t, acct.id);
    const rows = (await usageRows(g.t, acct.id)).length;
    const calls = upstreamCalls() + g.rerank.requests.length;
    await run();
    assert.equal(upstreamCalls() + g.rerank.requests.length, calls, 'nothing goes upstream');
    assert.deepEqual(await accountCredits(g.t, acct.id), balance);
    assert.equal((await usageRows(g.t, acct.id)).length, rows);
  }

  describe('rerank: a blank query or document is a 400 naming it', () => {
    const rerankRefused = async (body: Record<string, unknown>, error: string) => {
      const r = await postJson(g, acct.key, '/v1/rerank', { model: 'svc-rerank', ...body });
      assert.equal(r.status, 400, `${JSON.stringify(body)}: ${await r.clone().text()}`);
      assert.deepEqual(await r.json(), { error }, JSON.stringify(body));
    };

    it('an empty or whitespace query, an empty or whitespace document (string or {text}), before any hold or upstream call', async () => {
      await nothingSpent(async () => {
        await rerankRefused({ query: '', documents: ['a'] }, 'query: must not be empty');
        await rerankRefused({ query: '  \n\t', documents: ['a'] }, 'query: must not be only whitespace');
        await rerankRefused({ query: 'cat', documents: ['a', 'b', ''] }, 'documents[2]: must not be empty');
        await rerankRefused({ query: 'cat', documents: ['a', ' \n '] }, 'documents[1]: must not be only whitespace');
        await rerankRefused({ query: 'cat', documents: [{ text: 'a' }, { text: '' }] }, 'documents[1].text: must not be empty');
        await rerankRefused({ query: 'cat', documents: [{ text: '   ' }] }, 'documents[0].text: must not be only whitespace');
        await rerankRefused({ query: 'cat', documents: [] }, 'documents: must not be empty');
        await rerankRefused({ query: 'cat', documents: ['a'], top_n: 0 }, 'top_n: must be >= 1');
        await rerankRefused({ query: 'cat', documents: ['a'], top_n: -3 }, 'top_n: must be >= 1');
        await rerankRefused({ query: 'cat', documents: ['a'], top_n: 1.5 }, 'top_n: must be an integer');
      });
    });

    it('top_n above the documents gives them all, and the upstream is asked for the document count', async () => {
      const r = await postJson(g, acct.key, '/v1/rerank', { model: 'svc-rerank', query: 'cat', documents: ['a cat', { text: 'a dog' }], top_n: 50 });
      assert.equal(r.status, 200, await r.clone().text());
      const body = (await r.json()) as { results: { index: number }[] };
      assert.deepEqual(body.results.map((x) => x.index), [0, 1]);
      assert.equal((g.rerank.requests.at(-1)!.body as { top_n?: number }).top_n, 2);
    });
  });
});
