import { startFastifyFloor } from '../lib/fastify-floor.ts';

// Child process of bench/gateway.ts: the Fastify floor (h) in front of the instant upstream.
const floor = await startFastifyFloor(process.argv[2]!);
let requests = 0;
floor.server.on('request', () => void requests++);
process.on('message', (m: { type: string }) => {
  if (m.type === 'stats') {
    const cpu = process.cpuUsage();
    process.send!({ type: 'stats', cpuMicros: cpu.user + cpu.system, requests });
  }
});
process.send!({ type: 'ready', url: floor.url });
