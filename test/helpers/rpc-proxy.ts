import { createServer } from 'node:http';

/**
 * How the proxy treats the chain's JSON-RPC:
 * - pass: forwards everything;
 * - down: drops every connection (an RPC that is down);
 * - lose-broadcast: delivers eth_sendRawTransaction, then answers it with a gateway error (the
 *   withdrawal went out, its answer was lost);
 * - drop-broadcast: answers eth_sendRawTransaction with a gateway error without delivering it
 *   (signed, never sent: the node will never know it);
 * - reject-broadcast: answers eth_sendRawTransaction with the node's refusal (nothing broadcast).
 */
export type RpcProxyMode = 'pass' | 'down' | 'lose-broadcast' | 'drop-broadcast' | 'reject-broadcast';

export interface RpcProxy {
  readonly url: string;
  mode: RpcProxyMode;
  close(): Promise<void>;
}

/** A JSON-RPC proxy to `target` on 127.0.0.1 whose behaviour a test switches with `mode`. */
export async function startRpcProxy(target: string): Promise<RpcProxy> {
  const proxy: RpcProxy = { url: '', mode: 'pass', close: async () => {} };
  const server = createServer(async (req, res) => {
    if (proxy.mode === 'down') {
      req.socket.destroy();
      return;
    }
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    const { method, id } = JSON.parse(body) as { method?: string; id?: unknown };
    const broadcast = method === 'eth_sendRawTransaction';
    if (broadcast && proxy.mode === 'drop-broadcast') {
      res.writeHead(502, { 'content-type': 'text/plain' }).end('bad gateway');
      return;
    }
    if (broadcast && proxy.mode === 'reject-broadcast') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ jsonrpc: '2.0', id, error: { code: -32000, message: 'insufficient funds for gas * price + value' } }));
      return;
    }
    const upstream = await fetch(target, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    const answer = await upstream.text();
    if (broadcast && proxy.mode === 'lose-broadcast') {
      res.writeHead(502, { 'content-type': 'text/plain' }).end('bad gateway');
      return;
    }
    res.writeHead(upstream.status, { 'content-type': 'application/json' }).end(answer);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return Object.assign(proxy, {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
}
