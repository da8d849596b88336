import { sendJson, startFakeServer, type FakeServer } from './fake-server.ts';

/**
 * A rerank upstream speaking Cohere v2 (`meta.billed_units.search_units`, no token count) or Jina
 * (`usage.total_tokens`, documents echoed). Scores are the share of query words in a document.
 */
export interface FakeRerank extends FakeServer {
  readonly baseUrl: string;
  flavour: 'cohere' | 'jina';
  failNext(error: { status: number; message?: string }): void;
}

export const FAKE_RERANK_KEY = 'fakererank-key-0123';

const words = (s: string) => new Set(s.toLowerCase().match(/[a-z0-9]+/g) ?? []);

export function fakeRelevance(query: string, document: string): number {
  const q = words(query);
  const d = words(document);
  if (q.size === 0) return 0;
  let hits = 0;
  for (const w of q) if (d.has(w)) hits++;
  return hits / q.size;
}

export async function startFakeRerank(): Promise<FakeRerank> {
  const failures: { status: number; message?: string }[] = [];
  const server = await startFakeServer((request, res) => {
    const headers = { 'x-request-id': 'req_fakererank0123456789', server: fake.flavour === 'cohere' ? 'cohere-fake' : 'jina-fake' };
    if (request.headers.authorization !== `Bearer ${FAKE_RERANK_KEY}`) return sendJson(res, 401, { message: 'invalid api token' }, headers);
    const failure = failures.shift();
    if (failure) return sendJson(res, failure.status, { message: failure.message ?? `Cohere rerank-v3.5 failed (request req_fakererank0123456789)` }, headers);
    if (request.path !== '/v1/rerank') return sendJson(res, 404, { message: 'not found' }, headers);
    const body = request.body as { model: string; query: string; documents: string[]; top_n?: number };
    const ranked = body.documents
      .map((text, index) => ({ index, relevance_score: fakeRelevance(body.query, text), text }))
      .sort((a, b) => b.relevance_score - a.relevance_score || a.index - b.index)
      .slice(0, body.top_n ?? body.documents.length);
    if (fake.flavour === 'cohere') {
      return sendJson(res, 200, {
        id: 'fakecohere-07734bd2-2473',
        results: ranked.map(({ index, relevance_score }) => ({ index, relevance_score })),
        meta: { api_version: { version: '2' }, billed_units: { search_units: 1 } },
      }, headers);
    }
    const tokens = body.documents.reduce((n, d) => n + words(d).size + words(body.query).size, 0);
    return sendJson(res, 200, {
      model: body.model,
      usage: { total_tokens: tokens },
      results: ranked.map(({ index, relevance_score, text }) => ({ index, document: { text }, relevance_score })),
    }, headers);
  });
  // The handler reads `fake` only when requests arrive, after this assignment.
  const fake: FakeRerank = { ...server, baseUrl: `${server.url}/v1`, flavour: 'jina', failNext: (e) => void failures.push(e) };
  return fake;
}
