import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Pool } from 'undici';

/**
 * The baseline a gateway is measured against: node:http in, undici out, bytes piped through,
 * no parsing, no authentication, no billing.
 */
export async function startBareProxy(upstream: string, connections = 256): Promise<{ url: string; server: Server; close(): Promise<void> }> {
  const pool = new Pool(upstream, { connections, keepAliveTimeout: 30_000 });
  const server = createServer(async (req, res) => {
    try {
      const up = await pool.request({
        path: req.url!.replace(/^\/v1/, ''),
        method: req.method as 'POST',
        headers: { 'content-type': req.headers['content-type'] ?? 'application/json' },
        body: req,
      });
      res.writeHead(up.statusCode, { 'content-type': String(up.headers['content-type'] ?? 'application/json') });
      for await (const chunk of up.body) res.write(chunk);
      res.end();
    } catch {
      res.writeHead(502).end();
    }
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    server,
    close: async () => {
      await new Promise<void>((r) => server.close(() => r()));
      await pool.close();
    },
  };
}
