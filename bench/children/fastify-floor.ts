import { startFastifyFloor } from '../lib/fastify-floor.ts';
import { serveBenchChild } from '../lib/server-child.ts';

// Child process of bench/gateway.ts: the Fastify floor (h) in front of the instant upstream.
const floor = await startFastifyFloor(process.argv[2]!);
serveBenchChild(floor.server, floor.url);
