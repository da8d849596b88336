import { startBareProxy } from '../lib/bare-proxy.ts';

// Child process of bench/gateway.ts: the bare pass-through proxy (b) in front of the instant upstream.
const proxy = await startBareProxy(process.argv[2]!);
let requests = 0;
proxy.server.on('request', () => void requests++);
process.on('message', (m: { type: string }) => {
  if (m.type === 'stats') {
    const cpu = process.cpuUsage();
    process.send!({ type: 'stats', cpuMicros: cpu.user + cpu.system, requests });
  }
});
process.send!({ type: 'ready', url: proxy.url });
