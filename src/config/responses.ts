import { ConfigError } from './config-error.ts';

/** Settings of /v1/responses: how long responses are stored, and the bounds of MCP tool use. */
export interface ResponsesConfig {
  /** How long a stored response can be read or continued (default 30 days). */
  readonly retentionMs: number;
  /** How often expired responses are deleted. */
  readonly pruneIntervalMs: number;
  readonly mcp: {
    /** MCP server URLs may reach loopback, private and link-local addresses (default false). */
    readonly allowPrivateNetworks: boolean;
    readonly connectTimeoutMs: number;
    readonly callTimeoutMs: number;
    readonly maxResultBytes: number;
    /** Model calls per response when MCP tools run (the last one may not call tools). */
    readonly maxRounds: number;
  };
}

type Env = NodeJS.ProcessEnv;

function int(env: Env, key: string, def: number, min: number, max: number): number {
  const raw = env[key]?.trim();
  if (raw === undefined || raw === '') return def;
  if (!/^\d+$/.test(raw)) throw new ConfigError(key, `expected a whole number, got ${JSON.stringify(raw)}`);
  const n = Number(raw);
  if (n < min || n > max) throw new ConfigError(key, `must be between ${min} and ${max}, got ${n}`);
  return n;
}

function bool(env: Env, key: string): boolean {
  const raw = (env[key] ?? '').trim().toLowerCase();
  if (raw === '' || raw === 'false' || raw === '0' || raw === 'no' || raw === 'off') return false;
  if (raw === 'true' || raw === '1' || raw === 'yes' || raw === 'on') return true;
  throw new ConfigError(key, `expected true or false, got ${JSON.stringify(env[key])}`);
}

/**
 * Reads RESPONSES_RETENTION_DAYS, RESPONSES_PRUNE_INTERVAL_MS, MCP_ALLOW_PRIVATE_NETWORKS,
 * MCP_CONNECT_TIMEOUT_MS, MCP_CALL_TIMEOUT_MS, MCP_MAX_RESULT_BYTES and MCP_MAX_TOOL_ROUNDS.
 */
export function loadResponsesConfig(env: Env): ResponsesConfig {
  return Object.freeze({
    retentionMs: int(env, 'RESPONSES_RETENTION_DAYS', 30, 1, 3650) * 86_400_000,
    pruneIntervalMs: int(env, 'RESPONSES_PRUNE_INTERVAL_MS', 600_000, 1000, 86_400_000),
    mcp: Object.freeze({
      allowPrivateNetworks: bool(env, 'MCP_ALLOW_PRIVATE_NETWORKS'),
      connectTimeoutMs: int(env, 'MCP_CONNECT_TIMEOUT_MS', 10_000, 100, 300_000),
      callTimeoutMs: int(env, 'MCP_CALL_TIMEOUT_MS', 30_000, 100, 600_000),
      maxResultBytes: int(env, 'MCP_MAX_RESULT_BYTES', 100_000, 1024, 10_000_000),
      maxRounds: int(env, 'MCP_MAX_TOOL_ROUNDS', 8, 1, 64),
    }),
  });
}
