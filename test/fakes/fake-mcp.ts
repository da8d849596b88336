import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';

/**
 * Local MCP servers built with the SDK's McpServer, for the gateway's MCP client: one over
 * streamable HTTP (stateless, a server per request), one over the legacy SSE transport (its
 * server_url answers POST with 405, as 2024-11-05 servers do, so the client falls back).
 * Tools: `add` and `multiply` (numbers), `weather` and `slow` (`slow` waits until released).
 */
export interface FakeMcp {
  readonly url: string;
  /** Calls made, as `name(args)`. */
  readonly calls: string[];
  /** Headers of the requests it received. */
  readonly headers: Record<string, string | string[] | undefined>[];
  close(): Promise<void>;
}

function buildServer(calls: string[], kind: 'math' | 'weather', slowMs: number): McpServer {
  const server = new McpServer({ name: `fake-${kind}`, version: '1.0.0' });
  if (kind === 'math') {
    server.registerTool('add', { description: 'Adds two numbers', inputSchema: { a: z.number(), b: z.number() } }, async ({ a, b }) => {
      calls.push(`add(${a},${b})`);
      return { content: [{ type: 'text', text: String(a + b) }] };
    });
    server.registerTool('multiply', { description: 'Multiplies two numbers', inputSchema: { a: z.number(), b: z.number() } }, async ({ a, b }) => {
      calls.push(`multiply(${a},${b})`);
      return { content: [{ type: 'text', text: String(a * b) }] };
    });
  } else {
    server.registerTool('weather', { description: 'Weather in a city', inputSchema: { city: z.string() } }, async ({ city }) => {
      calls.push(`weather(${city})`);
      return { content: [{ type: 'text', text: `Sunny and 21C in ${city}` }] };
    });
    server.registerTool('slow', { description: 'Answers slowly', inputSchema: { city: z.string() } }, async ({ city }) => {
      calls.push(`slow(${city})`);
      await new Promise((r) => setTimeout(r, slowMs));
      return { content: [{ type: 'text', text: `late answer for ${city}` }] };
    });
  }
  return server;
}

async function readBody(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  return text === '' ? undefined : JSON.parse(text);
}

async function listen(handler: (req: IncomingMessage, res: ServerResponse) => Promise<void>): Promise<{ server: Server; url: string; sockets: Set<Socket> }> {
  const sockets = new Set<Socket>();
  const server = createServer((req, res) => {
    handler(req, res).catch(() => {
      if (!res.headersSent) res.writeHead(500).end();
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, sockets };
}

function closer(server: Server, sockets: Set<Socket>): () => Promise<void> {
  return async () => {
    for (const s of sockets) s.destroy();
    await new Promise<void>((r) => server.close(() => r()));
  };
}

/** Math tools (`add`, `multiply`) over streamable HTTP at `${url}/mcp`. */
export async function startStreamableMcp(): Promise<FakeMcp> {
  const calls: string[] = [];
  const headers: FakeMcp['headers'] = [];
  const { server, url, sockets } = await listen(async (req, res) => {
    headers.push(req.headers);
    if (req.method !== 'POST') {
      res.writeHead(405).end();
      return;
    }
    const mcp = buildServer(calls, 'math', 0);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on('close', () => {
      void transport.close();
      void mcp.close();
    });
    await mcp.connect(transport);
    await transport.handleRequest(req, res, await readBody(req));
  });
  return { url: `${url}/mcp`, calls, headers, close: closer(server, sockets) };
}

/** Weather tools (`weather`, `slow`) over the legacy SSE transport at `${url}/sse`. */
export async function startSseMcp(opts: { slowMs?: number } = {}): Promise<FakeMcp> {
  const calls: string[] = [];
  const headers: FakeMcp['headers'] = [];
  const transports = new Map<string, SSEServerTransport>();
  const { server, url, sockets } = await listen(async (req, res) => {
    headers.push(req.headers);
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    if (path === '/sse' && req.method === 'GET') {
      const transport = new SSEServerTransport('/messages', res);
      transports.set(transport.sessionId, transport);
      res.on('close', () => transports.delete(transport.sessionId));
      await buildServer(calls, 'weather', opts.slowMs ?? 60_000).connect(transport);
      return;
    }
    if (path === '/messages' && req.method === 'POST') {
      const id = new URL(req.url ?? '/', 'http://x').searchParams.get('sessionId') ?? '';
      const transport = transports.get(id);
      if (!transport) {
        res.writeHead(404).end();
        return;
      }
      await transport.handlePostMessage(req, res, await readBody(req));
      return;
    }
    res.writeHead(405).end();
  });
  return { url: `${url}/sse`, calls, headers, close: closer(server, sockets) };
}
