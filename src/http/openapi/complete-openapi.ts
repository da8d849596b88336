import { INFERENCE_BODIES, ResponseObject } from './inference-schemas.ts';

/**
 * Completes the OpenAPI document the routes produce with what applies to whole surfaces, so each
 * route does not have to repeat it (and cannot forget it): the security of each surface, the
 * error answers every route of a surface can give in that surface's body shape, the model
 * endpoints' bodies, and the answers of the routes whose handlers build them without a schema.
 * A route's own declarations are never replaced.
 */
type Schema = Record<string, unknown>;
interface Operation {
  security?: Requirement[];
  requestBody?: unknown;
  responses?: Record<string, { description?: string; content?: Record<string, { schema?: Schema }> }>;
  [k: string]: unknown;
}
interface Document {
  paths?: Record<string, Record<string, Operation>>;
  components?: { securitySchemes?: Record<string, Schema>; schemas?: Record<string, Schema> };
  [k: string]: unknown;
}

export const SECURITY_SCHEMES = {
  bearer: { type: 'http', scheme: 'bearer', description: 'An inference key: `Authorization: Bearer svk_...`' },
  xApiKey: { type: 'apiKey', in: 'header', name: 'x-api-key', description: 'An inference key in `x-api-key` (as the Anthropic SDK sends it)' },
  adminToken: { type: 'http', scheme: 'bearer', description: 'The admin token (`ADMIN_TOKEN` or `DATA_DIR/admin-token`)' },
  marketApiKey: { type: 'apiKey', in: 'header', name: 'x-api-key', description: 'A market API key; with x-api-timestamp and x-api-signature (docs/signing.md)' },
  marketTimestamp: { type: 'apiKey', in: 'header', name: 'x-api-timestamp', description: 'Unix seconds of the signature' },
  marketSignature: {
    type: 'apiKey',
    in: 'header',
    name: 'x-api-signature',
    description: 'lower-case hex HMAC-SHA256, keyed with the API secret, of timestamp + METHOD + path + raw body (docs/signing.md)',
  },
  walletMessage: { type: 'apiKey', in: 'header', name: 'x-wallet-message', description: '`svc-auth v1 <wallet lower case> <unix seconds> <METHOD> <path> <sha256 hex of body>` (docs/signing.md)' },
  walletSignature: { type: 'apiKey', in: 'header', name: 'x-wallet-signature', description: 'EIP-191 personal_sign of x-wallet-message by the wallet' },
} as const;

type Requirement = Record<string, string[]>;
const ADMIN: Requirement[] = [{ adminToken: [] }];
const INFERENCE: Requirement[] = [{ bearer: [] }];
const MESSAGES: Requirement[] = [{ bearer: [] }, { xApiKey: [] }];
const HMAC: Requirement = { marketApiKey: [], marketTimestamp: [], marketSignature: [] };
const WALLET: Requirement = { walletMessage: [], walletSignature: [] };

const PlainError = { type: 'object', required: ['error'], properties: { error: { type: 'string' } } };
const MarketError = { type: 'object', required: ['success', 'error'], properties: { success: { type: 'boolean', enum: [false] }, error: { type: 'string' } } };

const REASONS: Record<string, string> = {
  '400': 'The request is malformed; the message names the field',
  '401': 'Missing or invalid credentials',
  '402': 'Not enough credits',
  '403': 'Not allowed',
  '404': 'Not found',
  '409': 'Conflicts with the current state',
  '413': 'The body is larger than BODY_LIMIT_BYTES',
  '429': 'Rate limited; try again later',
  '500': 'Unexpected error (logged with the request id)',
  '502': 'The upstream failed',
  '503': 'Not available now (model not configured, upstream overloaded, database down)',
  '504': 'The upstream timed out',
  '529': "The upstream is overloaded (Anthropic's status, on /messages only; the other protocols answer 503)",
};

type Surface = 'admin' | 'inference' | 'market' | 'ops';

function surfaceOf(path: string): Surface {
  if (path.startsWith('/admin/')) return 'admin';
  if (path.startsWith('/v1/') || path.startsWith('/inference/v1/')) return 'inference';
  if (path.startsWith('/api/')) return 'market';
  return 'ops';
}

function errorCodes(surface: Surface, method: string, path: string, signed: boolean): string[] {
  const body = method !== 'get' && method !== 'delete';
  switch (surface) {
    case 'admin':
      return ['401', ...(body || path.includes('{') ? ['400', '404'] : []), ...(method === 'post' ? ['409'] : []), '500'];
    case 'inference':
      if (method === 'get') return ['401', '403', '404', '429', '500'];
      return ['400', '401', '402', '403', '404', '413', '429', '500', '502', '503', '504', ...(/^(?:\/inference)?\/v1\/messages$/.test(path) ? ['529'] : [])];
    case 'market':
      return ['400', ...(signed ? ['401', '403'] : []), '429', '500'];
    case 'ops':
      return path === '/readyz' ? ['503'] : ['500'];
  }
}

const json = (schema: Schema, description = 'OK') => ({ description, content: { 'application/json': { schema } } });
const num = { type: 'number' };
const str = { type: 'string' };
const nstr = { type: 'string', nullable: true };
const obj = (properties: Record<string, unknown>): Schema => ({ type: 'object', properties });

const Event = obj({ id: { type: 'integer' }, slug: str, title: str, description: nstr, category: str, image_url: nstr, status: str, end_date: nstr, featured: { type: 'boolean' }, featured_at: nstr, created_at: str });
const Market = obj({
  id: { type: 'integer' }, event_id: { type: 'integer', nullable: true }, slug: str, title: str, description: nstr, category: str, market_type: str, status: str,
  image_url: nstr, end_date: nstr, featured: { type: 'boolean' }, featured_at: nstr, outcome_labels: { type: 'object', additionalProperties: str },
  prices: { type: 'object', additionalProperties: num }, pools: { type: 'object', additionalProperties: num }, seeds: { type: 'object', additionalProperties: num },
  escrow: num, volume: num, trade_count: { type: 'integer' }, last_trade_at: nstr, resolved_outcome: nstr, resolved_at: nstr, cancelled_at: nstr,
  settlement: { type: 'object', nullable: true, additionalProperties: true }, created_at: str, updated_at: str,
});
const Books = obj({
  balanced: { type: 'boolean' },
  problems: { type: 'array', items: str },
  totals: obj({ wallets: num, escrow: num, fees: num, deposits: num, withdrawals: num, net_external: num, movements: { type: 'integer' }, entries: { type: 'integer' }, wallets_count: { type: 'integer' }, markets_count: { type: 'integer' }, settled_markets: { type: 'integer' } }),
});
const Balance = obj({ wallet_addr: str, balance: num, locked: num, total_deposited: num, total_withdrawn: num, available: num, max_withdraw: num, on_chain_available: { type: 'number', nullable: true } });
const IssuedKey = obj({ api_key: str, api_secret: { type: 'string', description: 'shown only in this answer' }, wallet: str, created_at: str });
const Reseal = obj({
  key_id: { type: 'string', description: 'id of the current SECRETS_KEY, as written in the sealed texts' },
  checked: { type: 'integer' }, resealed: { type: 'integer' }, already_current: { type: 'integer' },
  unopened: { type: 'array', items: str, description: 'public ids of keys whose secret opens with no key held (left as they are)' },
});
const SeedSummary = obj({ events: { type: 'integer' }, markets: { type: 'integer' }, resolved: { type: 'integer' }, cancelled: { type: 'integer' }, pending: { type: 'integer' }, wallets: { type: 'integer' }, trades: { type: 'integer' }, skipped: { type: 'integer' }, volume: num, books: Books });

const ResponseDeleted = obj({ id: str, object: { type: 'string', enum: ['response.deleted'] }, deleted: { type: 'boolean' } });
const InputItemList = {
  ...obj({
    object: { type: 'string', enum: ['list'] },
    data: { type: 'array', items: { type: 'object', description: 'an input item of the response (message, function_call_output, ...) or of the responses it continues, with its id' } },
    first_id: { type: 'string', nullable: true },
    last_id: { type: 'string', nullable: true },
    has_more: { type: 'boolean' },
  }),
  description: 'query: `order` asc or desc (default desc), `limit` 1 to 100 (default 20), `after` an item id, `include`',
};

/** Answers of routes whose handlers declare none: `METHOD path` -> [status, schema]. */
const ANSWERS: Record<string, readonly [string, Schema | 'text' | 'events']> = {
  'get /healthz': ['200', obj({ status: str })],
  'get /readyz': ['200', obj({ status: str })],
  'get /metrics': ['200', 'text'],
  'get /admin/whoami': ['200', obj({ role: { type: 'string', enum: ['operator'] } })],
  'post /admin/events': ['201', Event],
  'post /admin/events/{id}/feature': ['200', Event],
  'delete /admin/events/{id}/feature': ['200', Event],
  'post /admin/markets': ['201', Market],
  'patch /admin/markets/{id}': ['200', Market],
  'post /admin/markets/{id}/activate': ['200', Market],
  'post /admin/markets/{id}/feature': ['200', Market],
  'delete /admin/markets/{id}/feature': ['200', Market],
  'post /admin/markets/{id}/cancel': ['200', Market],
  'post /admin/markets/{id}/resolve': ['200', Market],
  'post /admin/wallets/{wallet}/deposit': ['200', Balance],
  'post /admin/wallets/{wallet}/api-keys': ['201', IssuedKey],
  'get /admin/audit': ['200', Books],
  'post /admin/demo/seed': ['200', SeedSummary],
  'post /admin/secrets/reseal': ['200', Reseal],
  'get /v1/responses/{id}': ['200', ResponseObject],
  'get /inference/v1/responses/{id}': ['200', ResponseObject],
  'delete /v1/responses/{id}': ['200', ResponseDeleted],
  'delete /inference/v1/responses/{id}': ['200', ResponseDeleted],
  'get /v1/responses/{id}/input_items': ['200', InputItemList],
  'get /inference/v1/responses/{id}/input_items': ['200', InputItemList],
  'get /api/stream': ['200', 'events'],
};

/** Bodies read raw by their handlers (a signature covers the exact bytes), so no route schema declares them. */
const RAW_BODIES: Record<string, Schema> = {
  'post /dashboard/api/stripe/webhook': { type: 'object', description: 'a Stripe event, checked against its `stripe-signature` header' },
};

const hasSchema = (r: { content?: Record<string, { schema?: Schema }> } | undefined): boolean =>
  r?.content !== undefined && Object.values(r.content).some((c) => c.schema !== undefined);

/** A route answering its default 200 without a schema gets the one it really sends. */
function completeAnswer(op: Operation, key: string, inferencePath: string | null): void {
  const responses = (op.responses ??= {});
  const given = Object.entries(responses).some(([code, r]) => code.startsWith('2') && hasSchema(r));
  if (given) return;
  const model = inferencePath !== null ? INFERENCE_BODIES[inferencePath] : undefined;
  const answer = ANSWERS[key];
  if (!model && !answer) return;
  delete responses['200'];
  if (model) {
    responses['200'] = {
      ...json(model.response),
      ...(model.streams ? { content: { 'application/json': { schema: model.response }, 'text/event-stream': { schema: { type: 'string' } } } } : {}),
    };
    return;
  }
  const [status, schema] = answer!;
  if (schema === 'text') responses[status] = { description: 'OK', content: { 'text/plain': { schema: { type: 'string' } } } };
  else if (schema === 'events') responses[status] = { description: 'Server-Sent Events (trade and price events with ids; see docs/market-live.md)', content: { 'text/event-stream': { schema: { type: 'string' } } } };
  else responses[status] = json(schema);
}

/** Where `x-api-key` is accepted: the messages routes, and the catalog under the messages-style base (docs/decisions-accounts.md). */
function takesXApiKey(path: string, inferencePath: string): boolean {
  if (inferencePath.startsWith('/messages')) return true;
  return path.startsWith('/inference/') && /^\/(?:models|available-models)(?:\/|$)/.test(inferencePath);
}

export function completeOpenApi<T>(input: T): T {
  const doc = input as Document;
  doc.components ??= {};
  doc.components.securitySchemes = { ...doc.components.securitySchemes, ...SECURITY_SCHEMES };
  doc.components.schemas = { ...doc.components.schemas, Error: PlainError, MarketError };
  for (const [path, ops] of Object.entries(doc.paths ?? {})) {
    const surface = surfaceOf(path);
    const inferencePath = surface === 'inference' ? path.replace(/^\/(?:inference\/)?v1/, '') : null;
    for (const [method, op] of Object.entries(ops)) {
      const key = `${method} ${path}`;
      const signed = surface === 'market' && method !== 'get' && path !== '/api/pool/estimate';
      if (surface === 'admin') op.security = ADMIN;
      else if (surface === 'inference') op.security = takesXApiKey(path, inferencePath!) ? MESSAGES : INFERENCE;
      else if (signed) op.security = path === '/api/keys' && method === 'post' ? [WALLET] : [HMAC, WALLET];
      const model = inferencePath !== null ? INFERENCE_BODIES[inferencePath] : undefined;
      const body = model?.request ?? RAW_BODIES[key];
      if (body && op.requestBody === undefined) op.requestBody = { required: true, content: { 'application/json': { schema: body } } };
      completeAnswer(op, key, inferencePath);
      const responses = (op.responses ??= {});
      const ref = { $ref: surface === 'market' ? '#/components/schemas/MarketError' : '#/components/schemas/Error' };
      for (const code of errorCodes(surface, method, path, signed)) {
        if (!hasSchema(responses[code])) responses[code] = { description: responses[code]?.description ?? REASONS[code]!, content: { 'application/json': { schema: ref } } };
      }
    }
  }
  return input;
}
