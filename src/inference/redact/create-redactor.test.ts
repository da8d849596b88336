import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildCatalog } from '../../config/catalog.ts';
import { createRedactor } from './create-redactor.ts';

const catalog = buildCatalog(
  {
    providers: [
      { id: 'openai-main', type: 'openai', base_url: 'https://api.upstream-one.example:8443/v1', api_key: 'sk-live-secret-123' },
      { id: 'backup-east', type: 'anthropic', base_url: 'http://127.0.0.1:4010', api_key: 'k2-secret' },
    ],
    models: [
      { id: 'svc-fast', type: 'chat', deployments: [{ provider: 'openai-main', model: 'acme-turbo-7b' }] },
      { id: 'svc-pro', type: 'chat', deployments: [{ provider: 'backup-east', model: 'claude-opus-4-1' }] },
    ],
  },
  {},
);
const redact = createRedactor(catalog);

/** Nothing a client may see should contain any of these. */
const FORBIDDEN = [
  /openai/i, /anthropic/i, /claude/i, /gpt/i, /acme-turbo/i, /upstream-one/i, /127\.0\.0\.1/, /4010/,
  /chatcmpl-/, /msg_/, /req_/, /toolu_/, /org-/, /sk-/, /secret/, /backup-east/, /https?:/,
];

function assertClean(text: string): void {
  for (const f of FORBIDDEN) assert.doesNotMatch(text, f, `leaks ${f}: ${text}`);
}

describe('createRedactor', () => {
  it('replaces model names by the brand id and providers by the service name', () => {
    const out = redact('The model `gpt-4.1-mini-2025-04-14` does not exist. OpenAI suggests claude-3-5-sonnet.', 'svc-fast');
    assert.equal(out, 'The model `svc-fast` does not exist. svc suggests svc-fast.');
  });

  it('replaces configured upstream model names and provider ids', () => {
    const out = redact('acme-turbo-7b on openai-main is overloaded (backup-east)', 'svc-fast');
    assert.equal(out, 'svc-fast on svc is overloaded (svc)');
  });

  it('removes hosts, URLs, keys and upstream ids', () => {
    const msg =
      'Incorrect API key provided: sk-live-secret-123. Request req_011CUqY1abc failed for chatcmpl-D8Z5oo6uDh67 ' +
      'at https://api.upstream-one.example:8443/v1/chat/completions; see http://127.0.0.1:4010/docs ' +
      'org-9x8y7z6w5v4u toolu_01KFbKqPYS msg_01QC4g3Hw sk-ant-api03-abcdef';
    const out = redact(msg, 'svc-pro');
    assertClean(out);
    assert.match(out, /Incorrect API key provided/);
  });

  it('keeps ordinary words that share an id prefix', () => {
    assert.equal(redact('file_search and user_id are fields', 'svc-fast'), 'file_search and user_id are fields');
  });

  it('cleans a realistic Anthropic error body message', () => {
    const out = redact(
      'max_tokens: 100000 > 32000, which is the maximum allowed number of output tokens for claude-opus-4-1-20250805',
      'svc-pro',
    );
    assert.equal(out, 'max_tokens: 100000 > 32000, which is the maximum allowed number of output tokens for svc-pro');
  });

  it('never rewrites the brand id it inserts', () => {
    assert.equal(redact('gpt-4o', 'svc-openai-like'), 'svc-openai-like');
  });
});
