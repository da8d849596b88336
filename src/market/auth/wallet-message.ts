/** The line a wallet signs: `svc-auth v1 <wallet lower case> <unix seconds> <METHOD> <path> <sha256 of body>`. */
export interface WalletMessageFields {
  readonly wallet: string;
  readonly timestamp: number;
  readonly method: string;
  readonly path: string;
  /** Lower-case hex SHA-256 of the raw body bytes. */
  readonly bodySha256: string;
}

const PREFIX = 'svc-auth v1';
const WALLET = /^0x[0-9a-fA-F]{40}$/;

export function buildWalletMessage(f: WalletMessageFields): string {
  return `${PREFIX} ${f.wallet.toLowerCase()} ${f.timestamp} ${f.method.toUpperCase()} ${f.path} ${f.bodySha256.toLowerCase()}`;
}

/**
 * Reads the fields of a wallet message, or null when it is not one. Strict on purpose: a message
 * is accepted only if rebuilding it from its fields gives the same text (lower-case wallet and
 * digest, no leading zeros), so the signed bytes have exactly one reading.
 */
export function parseWalletMessage(message: string): WalletMessageFields | null {
  const parts = message.split(' ');
  if (parts.length !== 7 || `${parts[0]} ${parts[1]}` !== PREFIX) return null;
  const [, , wallet, ts, method, path, digest] = parts as [string, string, string, string, string, string, string];
  if (!WALLET.test(wallet) || !/^\d{1,12}$/.test(ts) || !/^[A-Z]+$/.test(method)) return null;
  if (!path.startsWith('/') || !/^[0-9a-f]{64}$/.test(digest)) return null;
  const fields: WalletMessageFields = { wallet, timestamp: Number(ts), method, path, bodySha256: digest };
  return buildWalletMessage(fields) === message ? fields : null;
}

/** A part of a wallet message in the wrong case: the wallet and digest are lower case, the METHOD upper. */
export type WalletMessageCasePart = 'wallet' | 'method' | 'digest';

/**
 * When `message` fails parseWalletMessage only because of the case of its wallet, METHOD or body
 * digest (a checksummed address, as viem and ethers give them, is the usual one), the first such
 * part; else null. Only to say what is wrong: such a message is still refused, so a signed line
 * keeps its one reading (docs/decisions-market-auth.md).
 */
export function walletMessageCaseProblem(message: string): WalletMessageCasePart | null {
  const parts = message.split(' ');
  if (parts.length !== 7) return null;
  const [prefix, version, wallet, ts, method, path, digest] = parts as [string, string, string, string, string, string, string];
  const fixed = [prefix, version, wallet.toLowerCase(), ts, method.toUpperCase(), path, digest.toLowerCase()].join(' ');
  if (fixed === message || parseWalletMessage(fixed) === null) return null;
  if (wallet !== wallet.toLowerCase()) return 'wallet';
  return method !== method.toUpperCase() ? 'method' : 'digest';
}

/**
 * The timestamp text of a message that is a wallet message in every other part (so a refusal can
 * say what is wrong with it), else null. The message is still refused.
 */
export function walletMessageTimestamp(message: string): string | null {
  const parts = message.split(' ');
  if (parts.length !== 7) return null;
  const ts = parts[3]!;
  return parseWalletMessage([...parts.slice(0, 3), '0', ...parts.slice(4)].join(' ')) === null ? null : ts;
}
