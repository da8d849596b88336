import { startBareProxy } from '../lib/bare-proxy.ts';
import { serveBenchChild } from '../lib/server-child.ts';

// Child process of bench/gateway.ts: the bare pass-through proxy (b) in front of the instant upstream.
const proxy = await startBareProxy(process.argv[2]!);
serveBenchChild(proxy.server, proxy.url);
