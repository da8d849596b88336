import type { Clock } from '../../shared/clock.ts';
import { HttpError } from '../../shared/errors.ts';
import type { ApiKeyLookup } from './api-key.lookup.ts';
import { AUTH_ERRORS, authError, type AuthErrorName } from './auth.errors.ts';
import { sha256Hex } from './digest.ts';
import { hmacEncodingProblem, isHexInWrongCase, signHmacHex, verifyHmac, type HmacParts } from './hmac.signature.ts';
import type { ReplayCache } from './replay-cache.ts';
import { isWithinWindow, parseUnixSeconds, SIGNATURE_WINDOW_SECONDS, timestampUnitProblem } from './timestamp-window.ts';
import { isWalletAddress } from '../wallets/wallet-address.ts';
import { buildWalletMessage, parseWalletMessage, walletMessageCaseProblem, walletMessageTimestamp, type WalletMessageCasePart } from './wallet-message.ts';
import { isWalletSignatureWithout0x, recoverWalletSigner } from './wallet-signature.ts';

/** Who signed a market request, and how. `wallet` is lower case. */
export interface MarketAuth {
  readonly wallet: string;
  readonly method: 'hmac' | 'wallet';
  readonly apiKeyId?: bigint;
}

/** The parts of an HTTP request authentication reads; built by the Fastify adapter. */
export interface SignedRequest {
  readonly method: string;
  /** URL path as sent, without the query string. */
  readonly path: string;
  /** The query string as sent, with its `?`; '' for none. Never signed: only to name a signer's mistake. */
  readonly query: string;
  /** Header value by lower-case name; undefined or '' when absent. */
  header(name: string): string | undefined;
  /** Exact body bytes; empty for none. */
  readonly rawBody: Uint8Array;
  /**
   * `wallet_addr` of the body when the body has that property (any type), else undefined. The
   * authenticated wallet must equal it.
   */
  readonly bodyWallet: unknown;
}

export interface AuthenticateDeps {
  readonly keys: ApiKeyLookup;
  readonly replay: ReplayCache;
  readonly clock: Clock;
}

/** Replay entries outlive the widest span in which one signature is acceptable (2 x window). */
const REPLAY_TTL_MS = (2 * SIGNATURE_WINDOW_SECONDS + 5) * 1000;

/**
 * Checks an API-key HMAC or a wallet signature, in that preference when a request carries both
 * complete sets. Throws the contract's HttpError on refusal. The replay cache is consulted last,
 * after the signature proved genuine, so nobody can burn another's signature by sending it with
 * garbage first.
 */
export async function authenticateMarketRequest(req: SignedRequest, deps: AuthenticateDeps): Promise<MarketAuth> {
  const apiKey = req.header('x-api-key');
  const apiTimestamp = req.header('x-api-timestamp');
  const apiSignature = req.header('x-api-signature');
  if (apiKey && apiTimestamp && apiSignature) {
    return authenticateHmac(req, { apiKey, timestamp: apiTimestamp, signature: apiSignature }, deps);
  }
  const walletSignature = req.header('x-wallet-signature');
  const walletMessage = req.header('x-wallet-message');
  if (walletSignature && walletMessage) {
    return authenticateWallet(req, { message: walletMessage, signature: walletSignature }, deps);
  }
  throw authError('signatureRequired');
}

async function authenticateHmac(
  req: SignedRequest,
  h: { apiKey: string; timestamp: string; signature: string },
  deps: AuthenticateDeps,
): Promise<MarketAuth> {
  const ts = parseUnixSeconds(h.timestamp);
  if (ts === null || !isWithinWindow(ts, deps.clock.now())) {
    const unit = timestampUnitProblem(h.timestamp, deps.clock.now());
    throw authError(unit === null ? 'timestampOutOfRange' : API_TIMESTAMP_REFUSALS[unit]);
  }
  const record = await deps.keys.lookup(h.apiKey);
  if (!record || record.revokedAt !== null) throw authError('invalidApiKey');
  const parts: HmacParts = { timestamp: h.timestamp, method: req.method, path: req.path, rawBody: req.rawBody };
  if (isHexInWrongCase(h.signature)) throw authError('hmacSignatureCase');
  const encoding = hmacEncodingProblem(h.signature);
  if (encoding !== null) throw authError(HMAC_ENCODING_REFUSALS[encoding]);
  if (!verifyHmac(record.secret, parts, h.signature)) {
    const signedQuery = req.query !== '' && verifyHmac(record.secret, { ...parts, path: req.path + req.query }, h.signature);
    throw authError(signedQuery ? 'hmacSignedQuery' : 'invalidSignature');
  }
  checkBodyWallet(req.bodyWallet);
  if (!walletMatches(req.bodyWallet, record.wallet)) throw authError('apiKeyWalletMismatch');
  // The HMAC is deterministic, so the expected value names this signed request exactly.
  const auth: MarketAuth = { wallet: record.wallet, method: 'hmac', apiKeyId: record.id };
  await claimOnce(deps.replay, `hmac:${record.id}:${signHmacHex(record.secret, parts)}`, auth);
  await deps.keys.markUsed(record);
  return auth;
}

async function authenticateWallet(
  req: SignedRequest,
  h: { message: string; signature: string },
  deps: AuthenticateDeps,
): Promise<MarketAuth> {
  const fields = parseWalletMessage(h.message);
  if (!fields) throw authError(refusalOfMessage(h.message, deps.clock.now()));
  if (!isWithinWindow(fields.timestamp, deps.clock.now())) throw authError('timestampOutOfRange');
  const expectedAt = (path: string) =>
    buildWalletMessage({ wallet: fields.wallet, timestamp: fields.timestamp, method: req.method, path, bodySha256: sha256Hex(req.rawBody) });
  if (expectedAt(req.path) !== h.message) {
    const signedQuery = req.query !== '' && expectedAt(req.path + req.query) === h.message;
    throw authError(signedQuery ? 'walletMessageQuery' : 'invalidSignature');
  }
  if (isWalletSignatureWithout0x(h.signature)) throw authError('walletSignatureWithout0x');
  const signer = await recoverWalletSigner(h.message, h.signature);
  if (signer !== fields.wallet) throw authError('invalidSignature');
  checkBodyWallet(req.bodyWallet);
  if (!walletMatches(req.bodyWallet, signer)) throw authError('walletMismatch');
  // Keyed by the message, not the signature bytes: ECDSA signatures are malleable (s and n - s
  // both verify), so a key on the signature could be dodged with the twin signature.
  const auth: MarketAuth = { wallet: signer, method: 'wallet' };
  await claimOnce(deps.replay, `wallet:${sha256Hex(h.message)}`, auth);
  return auth;
}

/** A digest in another encoding than lower-case hex is named in the refusal (docs/decisions-market-auth.md). */
const HMAC_ENCODING_REFUSALS: Record<'hexPrefix' | 'base64', AuthErrorName> = {
  hexPrefix: 'hmacSignatureHexPrefix',
  base64: 'hmacSignatureBase64',
};

const CASE_REFUSALS: Record<WalletMessageCasePart, AuthErrorName> = {
  wallet: 'walletMessageWalletCase',
  method: 'walletMessageMethodCase',
  digest: 'walletMessageDigestCase',
};

/** A timestamp in another unit than whole seconds is named in the refusal (docs/decisions-market-auth.md). */
const API_TIMESTAMP_REFUSALS: Record<'milliseconds' | 'fraction', AuthErrorName> = {
  milliseconds: 'apiTimestampMilliseconds',
  fraction: 'apiTimestampFraction',
};
const WALLET_TIMESTAMP_REFUSALS: Record<'milliseconds' | 'fraction', AuthErrorName> = {
  milliseconds: 'walletTimestampMilliseconds',
  fraction: 'walletTimestampFraction',
};

/**
 * Why a wallet message that does not parse is refused: a part in the wrong case, or a timestamp
 * of the current time in another unit, is named; the rest is `Invalid signature`.
 */
function refusalOfMessage(message: string, nowMs: number): AuthErrorName {
  const part = walletMessageCaseProblem(message);
  if (part !== null) return CASE_REFUSALS[part];
  const ts = walletMessageTimestamp(message);
  const unit = ts === null ? null : timestampUnitProblem(ts, nowMs);
  return unit === null ? 'invalidSignature' : WALLET_TIMESTAMP_REFUSALS[unit];
}

/**
 * A `wallet_addr` that is not a wallet address at all (not `0x` + 40 hex digits, or not a string)
 * is a malformed request, 400 naming the field, not a claim to act for another wallet: checked
 * once the signer is known and before the wallet match (docs/decisions-market-auth.md).
 */
function checkBodyWallet(bodyWallet: unknown): void {
  if (bodyWallet !== undefined && !isWalletAddress(bodyWallet)) throw authError('invalidWalletAddr');
}

/** Whether the body names the signer's wallet (any case), or names none. */
function walletMatches(bodyWallet: unknown, wallet: string): boolean {
  if (bodyWallet === undefined) return true;
  return typeof bodyWallet === 'string' && bodyWallet.toLowerCase() === wallet;
}

/**
 * 401 `Signature already used`, for a genuine signature seen before; carries who signed, so that
 * an identical retry of a completed Idempotency-Key request can be answered with the stored answer.
 */
export class SignatureAlreadyUsed extends HttpError {
  constructor(readonly auth: MarketAuth) {
    const [status, message] = AUTH_ERRORS.signatureAlreadyUsed;
    super(status, message);
  }
}

async function claimOnce(replay: ReplayCache, key: string, auth: MarketAuth): Promise<void> {
  let first: boolean;
  try {
    first = await replay.claim(key, REPLAY_TTL_MS);
  } catch (e) {
    // Without the shared record a replay cannot be told apart: refuse rather than guess.
    const err = authError('replayStoreUnavailable');
    err.cause = e;
    throw err;
  }
  if (!first) throw new SignatureAlreadyUsed(auth);
}
