// Mints a market API key with a wallet signature (EIP-191 personal_sign, made here with viem).
// Only a wallet can mint keys; the secret is shown once.
// Run: SVC_PRIVATE_KEY=0x... npx tsx examples/market/create-api-key.ts
// (without SVC_PRIVATE_KEY it signs with a new throwaway wallet)
import { createHash } from 'node:crypto';
import { privateKeyToAccount, generatePrivateKey } from 'viem/accounts';

const url = process.env.SVC_URL ?? 'http://localhost:8080';
const account = privateKeyToAccount((process.env.SVC_PRIVATE_KEY as `0x${string}` | undefined) ?? generatePrivateKey());

const path = '/api/keys';
const body = JSON.stringify({ wallet_addr: account.address });
// The signed message (docs/signing.md): svc-auth v1 <wallet> <unix seconds> <METHOD> <path> <sha256 hex of body>
const timestamp = Math.floor(Date.now() / 1000);
const digest = createHash('sha256').update(body).digest('hex');
const message = `svc-auth v1 ${account.address.toLowerCase()} ${timestamp} POST ${path} ${digest}`;
const res = await fetch(`${url}${path}`, {
  method: 'POST',
  headers: {
    'content-type': 'application/json',
    'x-wallet-message': message,
    'x-wallet-signature': await account.signMessage({ message }),
  },
  body,
});
const answer = (await res.json()) as { data: { api_key: string; api_secret: string; wallet: string } };
if (res.status !== 201) throw new Error(`POST ${path}: ${res.status} ${JSON.stringify(answer)}`);
const { api_key, api_secret, wallet } = answer.data;
console.log(`wallet ${wallet} has a new API key; keep the secret, it is not shown again:`);
console.log(`export SVC_WALLET=${wallet} SVC_MARKET_KEY=${api_key} SVC_MARKET_SECRET=${api_secret}`);
