// The market's public reads: the most traded open markets, then their prices in one request.
// Run: npx tsx examples/market/read-prices.ts
const url = process.env.SVC_URL ?? 'http://localhost:8080';

// Every market answer is { success, data }; an error is { success: false, error }.
async function get<T>(path: string): Promise<T> {
  const res = await fetch(`${url}${path}`);
  const body = (await res.json()) as { success: boolean; data: T };
  if (!res.ok || !body.success) throw new Error(`GET ${path}: ${res.status} ${JSON.stringify(body)}`);
  return body.data;
}

const markets = await get<{ id: number; title: string; volume: number }[]>('/api/markets?status=active&sort=volume&limit=5');
if (markets.length === 0) {
  console.log('No open markets yet: `npm run seed:demo` makes some.');
  process.exit(0);
}
const ids = markets.map((m) => m.id).join(',');
// A three-way market (home, away, draw) also has a draw_price: the three sum to 1.
const prices = await get<Record<string, { yes_price: number; no_price: number; draw_price?: number }>>(`/api/markets/prices?ids=${ids}`);
for (const m of markets) {
  const p = prices[m.id]!;
  const draw = p.draw_price === undefined ? '' : `, draw ${p.draw_price.toFixed(3)}`;
  console.log(`#${m.id} ${m.title}: yes ${p.yes_price.toFixed(3)}, no ${p.no_price.toFixed(3)}${draw}, volume ${m.volume} USDC`);
}
