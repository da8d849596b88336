import type { AddressInfo } from 'node:net';
import Fastify from 'fastify';
import { Pool } from 'undici';

/**
 * The floor of any Fastify gateway that understands what it forwards (h): Fastify in (JSON body
 * parsed), undici out (body re-serialized), the JSON answer parsed and serialized again; streamed
 * answers piped as they come. No logging, authentication, rate limit, routing, billing or
 * re-encoding: what is left between it and (c) is the gateway's own work.
 */
export async function startFastifyFloor(upstream: string, connections = 256): Promise<{ url: string; server: import('node:http').Server; close(): Promise<void> }> {
  const pool = new Pool(upstream, { connections, keepAliveTimeout: 30_000 });
  const app = Fastify({ logger: false });
  app.post('/v1/chat/completions', async (request, reply) => {
    const body = request.body as { stream?: boolean };
    const up = await pool.request({ path: '/v1/chat/completions', method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    if (!body.stream) return up.body.json();
    reply.hijack();
    reply.raw.writeHead(up.statusCode, { 'content-type': 'text/event-stream' });
    for await (const chunk of up.body) reply.raw.write(chunk);
    reply.raw.end();
    return reply;
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  return { url: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`, server: app.server, close: () => Promise.all([app.close(), pool.close()]).then(() => undefined) };
}
