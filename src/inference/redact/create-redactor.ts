import type { Catalog } from '../../config/catalog.ts';

/** Replaces provider identities in a text meant for a client. */
export type Redactor = (text: string, brandModel: string) => string;

const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

// Any URL: upstream hosts, documentation links, dashboards.
const URL_RE = /\b[a-z][a-z0-9+.-]*:\/\/[^\s"'<>)\]]+/gi;

// Upstream object and request ids (`chatcmpl-…`, `msg_…`, `req_…`, `toolu_…`, `org-…`): a known
// prefix, then a token with at least one digit, so words like `file_search` survive.
const ID_PREFIXES = [
  'chatcmpl', 'cmpl', 'msg', 'req', 'resp', 'toolu', 'srvtoolu', 'call', 'run', 'asst', 'thread', 'file',
  'batch', 'org', 'proj', 'user', 'sess', 'img', 'ft', 'evt', 'embd', 'rs', 'fc', 'ws', 'ctx', 'gen', 'rerank',
];
const ID_RE = new RegExp(`\\b(?:${ID_PREFIXES.join('|')})[-_](?=[A-Za-z0-9_-]*\\d)[A-Za-z0-9_-]{6,}`, 'g');

// API keys as providers echo them (`sk-abc***xyz`, `sk-ant-api03-…`).
const KEY_RE = /\b(?:sk|pk|rk)-[A-Za-z0-9_*.-]{6,}/g;

// Model families, with their version suffix (`gpt-4.1-mini-2025-04-14`, `claude-sonnet-4-5`,
// `text-embedding-3-small`, `rerank-v3.5`, `o3-mini`); the bare family names of the best-known
// ones too. Replaced by the brand model id.
const VERSIONED_FAMILIES = [
  'chatgpt', 'gpt', 'claude', 'dall-e', 'davinci', 'babbage', 'text-embedding', 'text-davinci', 'text-moderation',
  'omni-moderation', 'whisper', 'tts', 'gemini', 'gemma', 'imagen', 'command', 'embed-english', 'embed-multilingual',
  'embed-v4', 'rerank', 'jina-reranker', 'jina-embeddings', 'jina-clip', 'voyage', 'mistral', 'mixtral', 'codestral',
  'ministral', 'pixtral', 'llama', 'qwen', 'qwq', 'deepseek', 'grok', 'phi', 'nomic-embed', 'bge', 'e5', 'sonar',
];
// A version suffix: separator-led segments, dots only between alphanumerics (`-4.1-mini`, `:free`).
const SUFFIX = '(?:[-_.:@/][A-Za-z0-9]+(?:\\.[A-Za-z0-9]+)*)';
const VERSIONED_RE = new RegExp(`\\b(?:${VERSIONED_FAMILIES.map(escape).join('|')})${SUFFIX}+`, 'gi');
const REASONING_MODEL_RE = /\bo[134](?:-(?:mini|pro|preview|deep-research|\d{4}-\d{2}-\d{2}))*\b/g;
const BARE_MODELS_RE = /\b(?:chatgpt|gpt|claude|gemini|llama|dall-e|davinci|mixtral|qwen|deepseek)\b/gi;

// Provider names, replaced by the service's name.
const PROVIDERS = [
  'azure openai', 'openai', 'anthropic', 'cohere', 'jina ai', 'jinaai', 'jina', 'voyage ai', 'voyageai', 'voyage',
  'mistral ai', 'mistral', 'google', 'vertex ai', 'vertex', 'bedrock', 'aws', 'azure', 'groq', 'deepinfra',
  'openrouter', 'huggingface', 'hugging face', 'fireworks ai', 'together ai', 'togetherai', 'perplexity', 'xai',
];
const PROVIDERS_RE = new RegExp(`\\b(?:${PROVIDERS.map(escape).join('|')})\\b`, 'gi');

const SERVICE_NAME = 'svc';

/** Exact strings, whole words only; `withSuffix` also takes a version suffix glued to them. */
function literalsRe(values: Iterable<string>, minLength: number, withSuffix = false): RegExp | null {
  const list = [...new Set(values)].filter((v) => v.length >= minLength).sort((a, b) => b.length - a.length);
  if (list.length === 0) return null;
  const tail = withSuffix ? `${SUFFIX}*` : '';
  return new RegExp(`(?<![A-Za-z0-9])(?:${list.map(escape).join('|')})${tail}(?![A-Za-z0-9])`, 'gi');
}

/**
 * Builds the redactor for a catalog: besides the generic patterns above it removes every configured
 * upstream host, key, provider id and upstream model name. The brand id is inserted through a
 * placeholder so later patterns cannot rewrite it.
 */
export function createRedactor(catalog: Catalog): Redactor {
  const hosts: string[] = [];
  const secrets: string[] = [];
  const providerIds: string[] = [];
  for (const p of catalog.providers.values()) {
    providerIds.push(p.id);
    if (p.apiKey) secrets.push(p.apiKey);
    if (p.baseUrl) {
      const u = new URL(p.baseUrl);
      hosts.push(u.host, u.hostname);
    }
  }
  const upstreamModels: string[] = [];
  for (const m of catalog.models.values()) for (const d of m.deployments) upstreamModels.push(d.model);

  const secretsRe = literalsRe(secrets, 1);
  const hostsRe = literalsRe(hosts, 1);
  const modelsRe = literalsRe(upstreamModels, 2, true);
  const providerIdsRe = literalsRe(providerIds, 3);
  const MODEL = '\u0000M\u0000';
  const SERVICE = '\u0000S\u0000';

  return (text, brandModel) => {
    let t = text;
    if (secretsRe) t = t.replace(secretsRe, '[redacted]');
    t = t.replace(URL_RE, '');
    if (hostsRe) t = t.replace(hostsRe, '');
    t = t.replace(KEY_RE, '[redacted]');
    t = t.replace(ID_RE, '[id]');
    if (modelsRe) t = t.replace(modelsRe, MODEL);
    t = t.replace(VERSIONED_RE, MODEL).replace(REASONING_MODEL_RE, MODEL).replace(BARE_MODELS_RE, MODEL);
    if (providerIdsRe) t = t.replace(providerIdsRe, SERVICE);
    t = t.replace(PROVIDERS_RE, SERVICE);
    return t
      .split(MODEL).join(brandModel)
      .split(SERVICE).join(SERVICE_NAME)
      .replace(/\(\s*\)|\[\s*\]/g, '')
      .replace(/\s+([.,;:])/g, '$1')
      .replace(/\s{2,}/g, ' ')
      .trim();
  };
}
