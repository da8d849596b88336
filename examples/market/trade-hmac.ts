// Places a trade signed with a market API key: hex HMAC-SHA256 of timestamp + METHOD + path + body.
// The wallet needs USDC first: npm run admin -- wallet deposit <wallet> 100
// Run: SVC_WALLET=0x... SVC_MARKET_KEY=... SVC_MARKET_SECRET=... npx tsx examples/market/trade-hmac.ts [market id]
import { createHmac, randomUUID } from 'node:crypto';

const url = process.env.SVC_URL ?? 'http://localhost:8080';
const { SVC_WALLET: wallet, SVC_MARKET_KEY: apiKey, SVC_MARKET_SECRET: apiSecret } = process.env;
if (!wallet || !apiKey || !apiSecret) {
  throw new Error('Set SVC_WALLET, SVC_MARKET_KEY and SVC_MARKET_SECRET: examples/market/create-api-key.ts prints them');
}
// The market to trade: the first argument, or the most traded open market.
const listed = (await (await fetch(`${url}/api/markets?status=active&sort=volume&limit=1`)).json()) as { data: { id: number }[] };
const marketId = Number(process.argv[2] ?? listed.data[0]?.id);
if (!marketId) throw new Error('No open market to trade: `npm run seed:demo` makes some');

const path = '/api/pool/trade';
const body = JSON.stringify({ wallet_addr: wallet, market_id: marketId, side: 'yes', amount: 5 });
const timestamp = String(Math.floor(Date.now() / 1000));
const signature = createHmac('sha256', apiSecret).update(timestamp + 'POST' + path + body).digest('hex');
const res = await fetch(`${url}${path}`, {
  method: 'POST',
  headers: {
    'content-type': 'application/json',
    'x-api-key': apiKey,
    'x-api-timestamp': timestamp,
    'x-api-signature': signature,
    'idempotency-key': randomUUID(), // a retry with the same key and body moves no money twice
  },
  body,
});
const answer = (await res.json()) as { data: unknown };
if (!res.ok) throw new Error(`POST ${path}: ${res.status} ${JSON.stringify(answer)}`);
console.log(answer.data); // { trade_id, shares, price, new_yes_price, ..., remaining_balance }
