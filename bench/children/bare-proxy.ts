import { startBareProxy } from '../lib/bare-proxy.ts';

// Child process of bench/gateway.ts: the bare pass-through proxy (b) in front of the instant upstream.
const proxy = await startBareProxy(process.argv[2]!);
process.send!({ type: 'ready', url: proxy.url });
