import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { FetchLike, Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { Agent, fetch as undiciFetch } from 'undici';
import { isPrivateAddress } from './private-address.ts';

export interface McpSettings {
  /** Let server URLs reach loopback, private and link-local addresses (tests, trusted networks). */
  readonly allowPrivateNetworks: boolean;
  readonly connectTimeoutMs: number;
  readonly callTimeoutMs: number;
  /** A tool result longer than this (UTF-8 bytes) becomes an error for the model. */
  readonly maxResultBytes: number;
}

/** A server URL that reaches an address the operator has not allowed (a 400 for the client). */
export class PrivateAddressError extends Error {
  constructor(readonly host: string) {
    super(`${host} resolves to a private, loopback or link-local address`);
  }
}

export interface McpTool {
  readonly name: string;
  readonly description: string | null;
  readonly inputSchema: Record<string, unknown>;
  readonly annotations: Record<string, unknown> | null;
}

export type McpCallOutcome = { readonly output: string } | { readonly error: string };

export interface McpSession {
  listTools(signal?: AbortSignal): Promise<McpTool[]>;
  /** Never throws: a failure (the server's, a timeout, a too large result) is the outcome's error. */
  callTool(name: string, argumentsJson: string, signal?: AbortSignal): Promise<McpCallOutcome>;
  close(): Promise<void>;
}

export interface McpServerTarget {
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
}

export interface McpClient {
  /** Throws PrivateAddressError when the URL's host resolves to an address that is not allowed. */
  checkUrl(url: string): Promise<void>;
  /** Streamable HTTP first, the legacy SSE transport after a 4xx from it; bounded by the connect timeout. */
  connect(target: McpServerTarget, signal?: AbortSignal): Promise<McpSession>;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const MAX_REDIRECTS = 5;

function describe(e: unknown): string {
  if (e instanceof Error) return e.message;
  return String(e);
}

async function resolveAll(host: string): Promise<string[]> {
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  if (isIP(bare)) return [bare];
  return new Promise((resolve, reject) => {
    dnsLookup(bare, { all: true }, (err, addresses: LookupAddress[]) => (err ? reject(err) : resolve(addresses.map((a) => a.address))));
  });
}

/** Resolves again when a connection is opened, so a name that changes its answer after the check (DNS rebinding) is refused too. */
const guardedLookup: LookupFunction = (hostname, options, callback) => {
  dnsLookup(hostname, { ...options, all: true }, (err, addresses: LookupAddress[]) => {
    if (err) return callback(err, '', 4);
    if (addresses.length === 0 || addresses.some((a) => isPrivateAddress(a.address))) return callback(new PrivateAddressError(hostname), '', 4);
    if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
    return callback(null, addresses[0]!.address, addresses[0]!.family);
  });
};

/**
 * The MCP SDK (with the zod schemas it builds) is loaded on the first MCP tool call, not at start:
 * some 20 MB of resident memory that a gateway serving no MCP tools never needs.
 */
const sdk = async () => {
  const [{ Client }, { SSEClientTransport }, { StreamableHTTPClientTransport, StreamableHTTPError }] = await Promise.all([
    import('@modelcontextprotocol/sdk/client/index.js'),
    import('@modelcontextprotocol/sdk/client/sse.js'),
    import('@modelcontextprotocol/sdk/client/streamableHttp.js'),
  ]);
  return { Client, SSEClientTransport, StreamableHTTPClientTransport, StreamableHTTPError };
};

export function createMcpClient(settings: McpSettings): McpClient {
  async function checkUrl(url: string): Promise<void> {
    if (settings.allowPrivateNetworks) return;
    const host = new URL(url).hostname;
    let addresses: string[];
    try {
      addresses = await resolveAll(host);
    } catch {
      return; // an unknown name fails when connecting, as for any unreachable server
    }
    if (addresses.some(isPrivateAddress)) throw new PrivateAddressError(host);
  }

  /** A fetch that checks every URL it is sent to, redirects included, and opens connections only to allowed addresses. */
  function guardedFetch(agent: Agent): FetchLike {
    return async (input, init) => {
      let url = new URL(input);
      let req = init ?? {};
      for (let hop = 0; ; hop++) {
        await checkUrl(url.href);
        const res = await undiciFetch(url, { ...(req as object), redirect: 'manual', dispatcher: agent } as Parameters<typeof undiciFetch>[1]);
        const location = res.headers.get('location');
        if (!REDIRECTS.has(res.status) || location === null) return res as unknown as Response;
        if (hop >= MAX_REDIRECTS) throw new Error('too many redirects');
        await res.body?.cancel();
        url = new URL(location, url);
        if (res.status === 303 || ((res.status === 301 || res.status === 302) && req.method === 'POST')) {
          const { body: _body, ...rest } = req;
          req = { ...rest, method: 'GET' };
        }
      }
    };
  }

  async function withTimeout<T>(ms: number, what: string, run: () => Promise<T>, onTimeout: () => void): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    try {
      return await Promise.race([
        run(),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => {
            onTimeout();
            reject(new Error(`${what} timed out after ${ms} ms`));
          }, ms);
        }),
      ]);
    } finally {
      clearTimeout(timer);
    }
  }

  async function open(transport: Transport, signal: AbortSignal | undefined): Promise<Client> {
    const { Client } = await sdk();
    const client = new Client({ name: 'svc-gateway', version: '1.0.0' });
    await withTimeout(settings.connectTimeoutMs, 'connecting to the MCP server', () => client.connect(transport, { signal, timeout: settings.connectTimeoutMs }), () => void transport.close().catch(() => {}));
    return client;
  }

  return {
    checkUrl,
    async connect(target, signal) {
      const agent = settings.allowPrivateNetworks
        ? new Agent({ connect: { timeout: settings.connectTimeoutMs } })
        : new Agent({ connect: { timeout: settings.connectTimeoutMs, lookup: guardedLookup } });
      const fetch = guardedFetch(agent);
      const url = new URL(target.url);
      const requestInit = { headers: { ...target.headers } };
      const { StreamableHTTPClientTransport, StreamableHTTPError, SSEClientTransport } = await sdk();
      let client: Client;
      try {
        try {
          client = await open(new StreamableHTTPClientTransport(url, { requestInit, fetch, redirectPolicy: 'follow' }), signal);
        } catch (e) {
          // Servers of the 2024-11-05 protocol answer the streamable POST with 404 or 405.
          const code = e instanceof StreamableHTTPError ? e.code : undefined;
          if (code === undefined || code < 400 || code >= 500) throw e;
          client = await open(new SSEClientTransport(url, { requestInit, fetch, redirectPolicy: 'follow', eventSourceInit: { fetch } }), signal);
        }
      } catch (e) {
        await agent.close().catch(() => {});
        throw e;
      }
      return {
        async listTools(sig) {
          const tools: McpTool[] = [];
          let cursor: string | undefined;
          do {
            const page = await client.listTools(cursor === undefined ? {} : { cursor }, { signal: sig, timeout: settings.callTimeoutMs });
            for (const t of page.tools) {
              tools.push({
                name: t.name,
                description: t.description ?? null,
                inputSchema: t.inputSchema as Record<string, unknown>,
                annotations: (t.annotations as Record<string, unknown> | undefined) ?? null,
              });
            }
            cursor = page.nextCursor;
          } while (cursor !== undefined && tools.length < 1000);
          return tools;
        },
        async callTool(name, argumentsJson, sig) {
          let args: Record<string, unknown>;
          try {
            const parsed: unknown = JSON.parse(argumentsJson === '' ? '{}' : argumentsJson);
            if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return { error: 'the arguments are not a JSON object' };
            args = parsed as Record<string, unknown>;
          } catch {
            return { error: 'the arguments are not valid JSON' };
          }
          try {
            const result = await client.callTool({ name, arguments: args }, undefined, { signal: sig, timeout: settings.callTimeoutMs });
            const content = Array.isArray(result.content) ? (result.content as { type: string; text?: string }[]) : [];
            const text = content.map((c) => (c.type === 'text' && typeof c.text === 'string' ? c.text : JSON.stringify(c))).join('\n');
            if (Buffer.byteLength(text, 'utf8') > settings.maxResultBytes) return { error: `the tool result is larger than ${settings.maxResultBytes} bytes` };
            return result.isError ? { error: text || 'the tool failed' } : { output: text };
          } catch (e) {
            return { error: describe(e) };
          }
        },
        async close() {
          await client.close().catch(() => {});
          await agent.close().catch(() => {});
        },
      };
    },
  };
}
